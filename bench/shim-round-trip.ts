// Median round trip of run_python `print(1)` as an MCP client sees it (the SDK's Client ->
// `codemode shim` -> local socket -> `codemode daemon` -> warm sandbox container, and back),
// measured side by side in one process with a plain hardened `docker run -i` of the same
// image with the same flags (the baseline of bench/sandbox-latency.ts). With
// CODEMODE_BEFORE_CHECKOUT set to another built checkout, that checkout's daemon runs beside
// this one (a home each), rounds interleaved, and the ratio between the two is printed too.
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/shim-round-trip.ts
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
  type DaemonProcess,
} from "../test-support/daemon.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { poolReady } from "./pool-ready.js";
import { record } from "./report.js";
import { median, row } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

interface Side {
  home: string;
  daemon: DaemonProcess;
  shim: McpSession;
  /** How long its shim took to connect and initialize. */
  connectMs: number;
  times: number[];
}

async function side(prefix: string, checkout?: string): Promise<Side> {
  const home = makeHome(prefix);
  writeServers(home, {});
  const daemon = await startDaemon(home, checkout === undefined ? {} : { checkout });
  const t = performance.now();
  const shim = await connectShim(home, { name: "bench", version: "1" });
  return { home, daemon, shim, connectMs: performance.now() - t, times: [] };
}

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  const plain: number[] = [];
  const connect: number[] = [];
  const sides: Side[] = [];
  try {
    const now = await side("codemode-bench-");
    connect.push(now.connectMs);
    sides.push(now);
    if (beforeDir !== undefined) {
      sides.push(await side("codemode-bench-b-", beforeDir));
    }
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    for (const s of sides) await s.shim.run(CODE);
    const rested = () =>
      Promise.all(
        sides.map((s) => poolReady(docker, s.home, SETTINGS_BOUNDS.warmPoolSize.default)),
      );
    for (let i = 0; i < ROUNDS; i++) {
      // Each goes first in every other round, so neither always follows the other's refill.
      for (const s of i % 2 === 0 ? sides : [...sides].reverse()) {
        // Every daemon's warm pool (its default floor), started and idle: what every measured
        // run meets, with no other pool still importing beside it. On a busy machine that can
        // take long; the wait is for the pools, not for a fixed time.
        await rested();
        const t = performance.now();
        const result = await s.shim.run(CODE);
        s.times.push(performance.now() - t);
        if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      }
      plain.push(await dockerRunOnce(image, CODE));
    }
    for (const s of sides) await s.shim.close();
    for (let i = 0; i < Math.min(ROUNDS, 5); i++) {
      const t = performance.now();
      const extra = await connectShim(now.home, { name: "bench-connect", version: "1" });
      connect.push(performance.now() - t);
      await extra.close();
    }
    for (const s of sides) await s.daemon.stop();
  } finally {
    await cleanUpHosts(docker);
  }
  const base = median(plain);
  const [now, before] = sides;
  console.log(`run_python print(1) through shim + daemon, median of ${ROUNDS} rounds`);
  console.log(`plain hardened \`docker run -i\` (baseline): ${base.toFixed(0)} ms`);
  const note = `median of ${ROUNDS} rounds, each after the pool refilled; goal 0.02x`;
  console.log(
    row(
      "`run_python` `print(1)`: MCP client -> shim -> daemon -> warm pool, rested pool",
      median(now!.times),
      base,
      DOCKER_RUN_BASELINE,
      note,
    ),
  );
  if (before !== undefined) {
    console.log(
      row(
        "`run_python` `print(1)` as above, through the daemon of CODEMODE_BEFORE_CHECKOUT",
        median(before.times),
        base,
        DOCKER_RUN_BASELINE,
        `${note}; rounds interleaved with the row above`,
      ),
    );
    console.log(
      row(
        "`run_python` `print(1)` through this daemon, against the daemon of CODEMODE_BEFORE_CHECKOUT",
        median(now!.times),
        median(before.times),
        "the same through the daemon of CODEMODE_BEFORE_CHECKOUT, rounds interleaved",
        `this: ${now!.times.map((x) => x.toFixed(1)).join(", ")}; before: ${before.times.map((x) => x.toFixed(1)).join(", ")}`,
      ),
    );
  }
  console.log(
    record({
      what: "an MCP client's start: spawn `codemode shim` and initialize",
      value: median(connect),
      note: `median of ${connect.length}; once per client, no baseline`,
    }),
  );
}

await main();
