// Median round trip of run_python `print(1)` as an MCP client sees it (the SDK's Client ->
// `codemode shim` -> local socket -> `codemode daemon` -> warm sandbox container, and back),
// measured side by side in one process with a plain hardened `docker run -i` of the same
// image with the same flags (the baseline of bench/sandbox-latency.ts).
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { SETTINGS_BOUNDS } from "../shared/limits.js";
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
import { record } from "./report.js";
import { median, row } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const home = makeHome("codemode-bench-");
  writeServers(home, {});
  const times = { shim: [] as number[], plain: [] as number[], connect: [] as number[] };
  try {
    const daemon = await startDaemon(home);
    let t = performance.now();
    const shim = await connectShim(home, { name: "bench", version: "1" });
    times.connect.push(performance.now() - t);
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    await shim.run(CODE);
    for (let i = 0; i < ROUNDS; i++) {
      // The warm pool's containers (its default floor), started and idle: what every measured
      // run meets. On a busy machine that can take long; the wait is for the pool, not for a
      // fixed time.
      await poolReady(docker, home, SETTINGS_BOUNDS.warmPoolSize.default);
      t = performance.now();
      const result = await shim.run(CODE);
      times.shim.push(performance.now() - t);
      if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      times.plain.push(await dockerRunOnce(image, CODE));
    }
    await shim.close();
    for (let i = 0; i < Math.min(ROUNDS, 5); i++) {
      t = performance.now();
      const extra = await connectShim(home, { name: "bench-connect", version: "1" });
      times.connect.push(performance.now() - t);
      await extra.close();
    }
    await daemon.stop();
  } finally {
    await cleanUpHosts(docker);
  }
  const base = median(times.plain);
  console.log(`run_python print(1) through shim + daemon, median of ${ROUNDS} rounds`);
  console.log(`plain hardened \`docker run -i\` (baseline): ${base.toFixed(0)} ms`);
  console.log(
    row(
      "`run_python` `print(1)`: MCP client -> shim -> daemon -> warm pool, rested pool",
      median(times.shim),
      base,
      DOCKER_RUN_BASELINE,
      `median of ${ROUNDS} rounds, each after the pool refilled; goal 0.02x`,
    ),
  );
  console.log(
    record({
      what: "an MCP client's start: spawn `codemode shim` and initialize",
      value: median(times.connect),
      note: `median of ${times.connect.length}; once per client, no baseline`,
    }),
  );
}

await main();
