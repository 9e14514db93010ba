// A heavy run right after a burst, as an MCP client sees it: a real `codemode daemon` (default
// settings: a floor of 2, preloading on) and the SDK's Client over `codemode shim`. Each round
// sends a burst of back-to-back `print(1)` runs, then at once a run importing the libraries
// warm containers preload, timed from the client; for context the same heavy run on a rested
// pool, and the baseline: a cold hardened `docker run -i` of the same imports. Right after a
// burst the pool's refills are lean or still importing, so the heavy run may pay the imports
// itself (or a cold start), where a rested pool answers at once.
//
//   npx tsx bench/pool-after-burst.ts        (BENCH_ROUNDS=8, BENCH_BURST=10 by default)
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  startDaemon,
  writeServers,
} from "../test-support/daemon.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { poolReady } from "./pool-ready.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BURST = Number(process.env.BENCH_BURST ?? 10);
const LIGHT = "print(1)";
const HEAVY = "import pandas, matplotlib.pyplot\nprint(1)";

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const home = makeHome("codemode-bench-after-burst-");
  writeServers(home, {});
  const after: number[] = [];
  const sinceBurst: number[] = [];
  const rested: number[] = [];
  const cold: number[] = [];
  try {
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "bench-after-burst", version: "1" });
    await dockerRunOnce(image, HEAVY); // warm the engine's caches for every path alike
    await shim.run(LIGHT);
    const timed = async (code: string): Promise<number> => {
      const start = performance.now();
      const result = await shim.run(code);
      if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      return performance.now() - start;
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Rested: every container of the pool (grown or not) started and idle.
      await poolReady(docker, home, null);
      rested.push(await timed(HEAVY));
      await poolReady(docker, home, null);
      const burstStart = performance.now();
      for (let i = 0; i < BURST; i++) await timed(LIGHT);
      sinceBurst.push(performance.now() - burstStart);
      after.push(await timed(HEAVY));
      cold.push(await dockerRunOnce(image, HEAVY));
    }
    await shim.close();
    await daemon.stop();
  } finally {
    await cleanUpHosts(docker);
  }
  const base = median(cold);
  const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
  report({
    what: `\`import pandas, matplotlib.pyplot\` via shim right after a burst of ${BURST} \`print(1)\` runs`,
    value: median(after),
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note: `median of ${ROUNDS}; each ms: ${list(after)}; cold ${list(cold)}; the bursts took ${list(sinceBurst)} ms; goal 0.25x`,
  });
  report({
    what: "`import pandas, matplotlib.pyplot` via shim on a rested pool",
    value: median(rested),
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note: `median of ${ROUNDS}; each ms: ${list(rested)}`,
  });
}

await main();
