// Median latency of `print(1)` side by side in one process: through the warm pool and through a
// cold container, on runc and (when the engine has it) on gVisor's runsc, and through a plain
// hardened `docker run -i` of the same image with the same flags (the baseline).
import { engineRuntimes } from "../electron/host/sandbox/container-engine/docker-runtimes.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SANDBOX_RUNTIMES, type SandboxRuntime } from "../shared/settings.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { median, row, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

interface Pair {
  runtime: SandboxRuntime;
  warm: Sandbox;
  cold: Sandbox;
  times: { warm: number[]; cold: number[] };
}

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const owner = currentOwner("codemode-bench");
  const available = await engineRuntimes(status.docker);
  const runtimes = SANDBOX_RUNTIMES.filter((runtime) => available.includes(runtime));
  const pairs: Pair[] = runtimes.map((runtime) => ({
    runtime,
    warm: new Sandbox({ engine: status.engine, image, owner, poolSize: 1, runtime }),
    cold: new Sandbox({ engine: status.engine, image, owner, poolSize: 0, runtime }),
    times: { warm: [], cold: [] },
  }));
  const plain: number[] = [];
  try {
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    for (let i = 0; i < ROUNDS; i++) {
      for (const { warm, cold, times } of pairs) {
        await waitFor(() => warm.idleContainers === 1);
        let t = performance.now();
        await warm.run({ code: CODE });
        times.warm.push(performance.now() - t);
        t = performance.now();
        await cold.run({ code: CODE });
        times.cold.push(performance.now() - t);
        await Promise.all([warm.settle(), cold.settle()]);
      }
      plain.push(await dockerRunOnce(image, CODE));
    }
  } finally {
    await Promise.all(pairs.flatMap(({ warm, cold }) => [warm.close(), cold.close()]));
  }
  const base = median(plain);
  const what = "`print(1)` through the Code Mode sandbox";
  const note = `median of ${ROUNDS} rounds`;
  console.log(`print(1), median of ${ROUNDS} rounds (ratio to plain docker run)`);
  console.log(`plain hardened \`docker run -i\` (baseline): ${base.toFixed(0)} ms`);
  for (const { runtime, times } of pairs) {
    console.log(
      row(
        `${what}, cold container, ${runtime}`,
        median(times.cold),
        base,
        DOCKER_RUN_BASELINE,
        note,
      ),
    );
    console.log(
      row(`${what}, warm pool, ${runtime}`, median(times.warm), base, DOCKER_RUN_BASELINE, note),
    );
  }
  const missing = SANDBOX_RUNTIMES.filter((runtime) => !runtimes.includes(runtime));
  if (missing.length > 0) console.log(`(not measured, the engine lacks: ${missing.join(", ")})`);
}

await main();
