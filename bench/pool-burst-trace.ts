// Why the first burst on a rested pool lands where it does: the warm pool as the Sandbox builds
// it (default floor, growth and preloading), 10 back-to-back print(1) runs straight through it,
// with a trace of each run (warm or cold, how long) and of each container the pool started
// (when, lean or preloading, when it was ready), rounds of it side by side with a cold hardened
// `docker run -i` measured between them. No shim or daemon: the pool's own dynamics, at a
// fraction of pool-burst's time. BENCH_ROUNDS sets the rounds, BENCH_TRACE=0 hides the trace.
// BENCH_CLAIMS=any,light,heavy compares, round after round, how runs claim containers: "any" as
// a caller that does not say what the code needs (a preloading container first, a miss starts a
// cold one: the pool before runs chose by their code), "light" as the Sandbox does for print(1)
// (lean first), "heavy" the same after a run whose code names pandas (the run before the rest),
// so the burst, once it finds the pool short, leaves the preloading container idle.
import os from "node:os";
import { poolGrowthFor } from "../electron/host/sandbox/pool-target.js";
import { runInContainer } from "../electron/host/sandbox/runner/run-session.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { WarmPool } from "../electron/host/sandbox/warm-pool.js";
import { containerNeed } from "../electron/host/sandbox/container-need.js";
import { RUN_LIMITS, SETTINGS_BOUNDS } from "../shared/limits.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { benchEngine } from "./bench-engine.js";
import { median } from "./stats.js";

const CODE = "print(1)";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = 10;
const TRACE = process.env.BENCH_TRACE !== "0";
/** The pool floors compared, round after round (BENCH_FLOORS=1,2); the default floor alone unless said. */
const FLOORS = (process.env.BENCH_FLOORS ?? String(SETTINGS_BOUNDS.warmPoolSize.default))
  .split(",")
  .map(Number);
const CLAIMS = (process.env.BENCH_CLAIMS ?? "light").split(",") as ("any" | "light" | "heavy")[];
/** A rested pool: no take for longer than the lean window, and every container ready. */
const REST_MS = 11_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { engine, image, owner } = await benchEngine();
  let t0 = performance.now();
  const at = (): string => `${(performance.now() - t0).toFixed(0).padStart(5)} ms`;
  const log = (text: string): void => {
    if (TRACE) console.log(`  ${at()}  ${text}`);
  };
  const cold = new Set<SandboxContainer>();
  let started = 0;
  const start = async (warm: boolean, preload: boolean): Promise<SandboxContainer> => {
    const n = ++started;
    const kind = warm ? (preload ? "warm, preloading" : "warm, lean") : "cold";
    log(`container #${n} starting (${kind})`);
    const container = await SandboxContainer.start(engine, image, owner, "runc", preload);
    if (!warm) cold.add(container);
    log(`container #${n} started`);
    void container.ready.then((ok) => warm && log(`container #${n} ${ok ? "ready" : "failed"}`));
    return container;
  };
  const defaults = {
    warmPoolMaxSize: SETTINGS_BOUNDS.warmPoolMaxSize.default,
    warmPoolIdleSeconds: SETTINGS_BOUNDS.warmPoolIdleSeconds.default,
    maxConcurrentRuns: SETTINGS_BOUNDS.maxConcurrentRuns.default,
  };
  const newPool = (floor: number): WarmPool =>
    new WarmPool({
      startContainer: start,
      size: floor,
      growth: poolGrowthFor(defaults),
      preload: true,
    });
  let pool: WarmPool | null = null;
  const removals: Promise<void>[] = [];
  const bursts: number[][] = [];
  const floors: number[] = [];
  const claims: string[] = [];
  const plain: number[] = [];
  const loadBefore = os.loadavg()[0] ?? 0;
  try {
    await dockerRunOnce(image, CODE);
    for (let round = 0; round < ROUNDS; round++) {
      // A new pool each round, as the daemon's: one run, then rested (no take within the lean
      // window, refills and lean swaps done): what pool-burst's first burst meets.
      const floor = FLOORS[round % FLOORS.length]!;
      floors.push(floor);
      const claim = CLAIMS[Math.floor(round / FLOORS.length) % CLAIMS.length]!;
      claims.push(claim);
      const need = claim === "any" ? undefined : containerNeed(CODE);
      pool = newPool(floor);
      pool.fill();
      await pool.settled();
      const first = await pool.take(claim === "heavy" ? "preloaded" : need);
      await runInContainer(
        first,
        { code: CODE },
        {},
        { deadlineCeilingSeconds: RUN_LIMITS.defaultDeadlineSeconds },
      );
      removals.push(first.remove().catch(() => undefined));
      for (let i = 0; i < 2; i++) plain.push(await dockerRunOnce(image, CODE));
      await Promise.all(removals);
      await sleep(REST_MS);
      await pool.settled();
      await sleep(500);
      await pool.settled();
      t0 = performance.now();
      if (TRACE)
        console.log(
          `round ${round + 1}, floor ${floor}, claims ${claim}: pool idle ${pool.idle}, target ${pool.targetSize}`,
        );
      const times: number[] = [];
      for (let i = 0; i < BURST; i++) {
        const t = performance.now();
        const container = await pool.take(need);
        const result = await runInContainer(
          container,
          { code: CODE },
          {},
          { deadlineCeilingSeconds: RUN_LIMITS.defaultDeadlineSeconds },
        );
        if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
        const ms = performance.now() - t;
        times.push(ms);
        log(
          `run ${i + 1}: ${cold.has(container) ? "COLD" : "warm"} ${ms.toFixed(0)} ms (target then ${pool.targetSize}, idle ${pool.idle})`,
        );
        removals.push(container.remove().catch(() => undefined));
      }
      bursts.push(times);
      await Promise.allSettled(removals);
      await pool.drain();
    }
    for (let i = 0; i < 2; i++) plain.push(await dockerRunOnce(image, CODE));
  } finally {
    await Promise.allSettled(removals);
    await pool?.drain();
  }
  const base = median(plain);
  const load = os.loadavg()[0] ?? 0;
  console.log(
    `rested warm pool, ${BURST} back-to-back print(1) (no shim), load ${loadBefore.toFixed(1)} -> ${load.toFixed(1)} on ${os.cpus().length} cores`,
  );
  console.log(`${DOCKER_RUN_BASELINE}: median ${base.toFixed(0)} ms of ${plain.length}`);
  for (const floor of new Set(floors)) {
    for (const claim of new Set(claims)) {
      const all = bursts.filter((_, i) => floors[i] === floor && claims[i] === claim);
      if (all.length === 0) continue;
      const medians = all.map(median);
      console.log(
        `floor ${floor}, claims ${claim}: median of the rounds' medians ${median(medians).toFixed(0)} ms = ${(median(medians) / base).toFixed(2)}x (${all.length} rounds)`,
      );
    }
  }
  for (const [i, times] of bursts.entries()) {
    const m = median(times);
    const warm = times.filter((t) => t < base / 2).length;
    console.log(
      `round ${i + 1}, floor ${floors[i]}, claims ${claims[i]}: median ${m.toFixed(0)} ms = ${(m / base).toFixed(2)}x, ${warm}/${BURST} under half the baseline; each ${times.map((t) => t.toFixed(0)).join(" ")}`,
    );
  }
}

await main();
