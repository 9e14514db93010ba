// Whether deferring `docker rm` of finished containers raises how many runs per second the
// engine gives several clients at once (4 clients): CLIENTS workers each run
// print(1) in a fresh hardened container, back to back, RUNS in all, side by side in rounds:
// - inline: the container is removed (`rm -f`) as soon as its run ends, as the Sandbox does;
// - deferred: it is killed then (its processes gone), and removed only after the burst.
// The deferred rate counts the burst alone; the removals after it are timed apart (what a quiet
// pool would pay later).
import { runInContainer } from "../electron/host/sandbox/runner/run-session.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { RUN_LIMITS } from "../shared/limits.js";
import { benchEngine } from "./bench-engine.js";
import { median } from "./stats.js";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 24);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  const { docker, engine, image, owner } = await benchEngine();
  const rates = { inline: [] as number[], deferred: [] as number[] };
  const later: number[] = [];
  const burst = async (defer: boolean): Promise<number> => {
    let left = RUNS;
    const killed: SandboxContainer[] = [];
    const worker = async (): Promise<void> => {
      while (left > 0) {
        left--;
        const container = await SandboxContainer.start(engine, image, owner);
        const result = await runInContainer(
          container,
          { code: "print(1)" },
          {},
          { deadlineCeilingSeconds: RUN_LIMITS.defaultDeadlineSeconds },
        );
        if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
        if (defer) {
          await docker
            .getContainer(container.id)
            .kill()
            .catch(() => undefined);
          killed.push(container);
        } else await container.remove();
      }
    };
    const t = performance.now();
    try {
      await Promise.all(Array.from({ length: CLIENTS }, worker));
      return RUNS / ((performance.now() - t) / 1000);
    } finally {
      const r = performance.now();
      await Promise.allSettled(killed.map((c) => c.remove()));
      if (defer) later.push(performance.now() - r);
    }
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const defer of order) rates[defer ? "deferred" : "inline"].push(await burst(defer));
  }
  const show = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(", ");
  console.log(`${CLIENTS} clients, ${RUNS} cold print(1) runs per burst, ${ROUNDS} rounds each`);
  console.log(
    `inline rm -f: ${show(rates.inline)} runs/s (median ${median(rates.inline).toFixed(2)})`,
  );
  console.log(
    `kill, rm deferred: ${show(rates.deferred)} runs/s (median ${median(rates.deferred).toFixed(2)}) = ${(median(rates.deferred) / median(rates.inline)).toFixed(2)}x; the deferred removals took ${later.map((x) => x.toFixed(0)).join(", ")} ms after each burst`,
  );
}

await main();
