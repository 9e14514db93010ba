// Runs that come back to back, and from several clients, through the real path (the SDK's
// Client -> `codemode shim` -> `codemode daemon` with its default settings -> warm pool), side
// by side in one run with (a) a cold hardened `docker run -i` of `print(1)` (the baseline)
// and (d) the engine's own limit: how many hardened containers per second it starts and
// removes when started in parallel, since every run needs a fresh container. The 4 clients'
// runs are also compared with the same runs through a second daemon that has no pool at all.
import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SETTINGS_BOUNDS } from "../shared/limits.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  homeContainers,
  makeHome,
  startDaemon,
  writeServers,
  type DaemonProcess,
} from "../test-support/daemon.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { poolReady } from "./pool-ready.js";
import { record, report } from "./report.js";
import { median } from "./stats.js";

const CODE = "print(1)";
/** Cold `docker run`s just before and just after each burst part: its baseline is all of them. */
const BASELINE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BURST = 10;
const CLIENTS = 4;
const FLOOD_CLIENTS = 8;
const FLOOD_RUNS = Number(process.env.BENCH_FLOOD_RUNS ?? 50);
/** Containers the engine-limit probe starts and removes, that many at a time. */
const ENGINE_CONTAINERS = Number(process.env.BENCH_ENGINE_CONTAINERS ?? 48);
const ENGINE_PARALLEL = FLOOD_CLIENTS;

async function timedRun(shim: McpSession): Promise<number> {
  const t = performance.now();
  const result = await shim.run(CODE);
  if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
  return performance.now() - t;
}

async function backToBack(shim: McpSession, runs: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timedRun(shim));
  return times;
}

/** The engine's limit: hardened containers started and removed per second, in parallel. */
async function engineLimit(image: string): Promise<number> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const owner = currentOwner("codemode-bench");
  let left = ENGINE_CONTAINERS;
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left--;
      const container = await SandboxContainer.start(status.engine, image, owner);
      await container.remove();
    }
  };
  const t = performance.now();
  await Promise.all(Array.from({ length: ENGINE_PARALLEL }, worker));
  return ENGINE_CONTAINERS / ((performance.now() - t) / 1000);
}

/** The same number of cold print(1) runs straight through the sandbox (no host, no shim, no pool). */
async function sandboxLimit(image: string): Promise<number> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const sandbox = new Sandbox({
    engine: status.engine,
    image,
    owner: currentOwner("codemode-bench"),
    poolSize: 0,
  });
  let left = ENGINE_CONTAINERS;
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left--;
      const result = await sandbox.run({ code: CODE });
      if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
    }
  };
  const t = performance.now();
  try {
    await Promise.all(Array.from({ length: ENGINE_PARALLEL }, worker));
    await sandbox.settle();
    return ENGINE_CONTAINERS / ((performance.now() - t) / 1000);
  } finally {
    await sandbox.close();
  }
}

/**
 * A second daemon, with no warm pool at all (every run starts a cold container), for the 4
 * clients' runs to be compared with: every run needs a fresh container, so several clients
 * running back to back are bound by the engine's starts with or without a pool; the same path
 * (shim, daemon, bridge, audit) on both sides says what the pool adds there.
 */
async function coldDaemon(): Promise<{ home: string; daemon: DaemonProcess }> {
  const home = makeHome("codemode-bench-cold-");
  writeServers(home, {});
  writeFileSync(
    path.join(home, "settings.json"),
    JSON.stringify({ warmPoolSize: 0, warmPoolMaxSize: 0 }),
  );
  return { home, daemon: await startDaemon(home) };
}

/** The burst parts' baseline, as a row of the table names it. */
const AROUND = `${DOCKER_RUN_BASELINE} (median of ${2 * BASELINE_ROUNDS}, just before and just after)`;

function line(label: string, ms: number, base: number, goal?: number): string {
  const ratio = ms / base;
  if (goal !== undefined) {
    record({
      what: label,
      value: ms,
      baseline: base,
      baselineWhat: AROUND,
      note: `goal <= ${goal}x`,
    });
  }
  const verdict =
    goal === undefined
      ? ""
      : ratio <= goal
        ? `  goal <= ${goal}x: met`
        : `  goal <= ${goal}x: NOT met`;
  return `${label.padEnd(58)} ${ms.toFixed(0).padStart(6)} ms  ${ratio.toFixed(2)}x${verdict}`;
}

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const home = makeHome("codemode-bench-");
  writeServers(home, {});
  const loadBefore = os.loadavg()[0] ?? 0;
  // Cold runs before the first burst, then after each part (each also the next part's before).
  const plain: number[][] = [];
  let burst1: number[] = [];
  let burst2: number[] = [];
  let clients: number[] = [];
  let coldClients: number[] = [];
  let flood = { runs: 0, seconds: 0, failed: 0 };
  let engine = 0;
  let engines: number[] = [];
  let coldRuns = 0;
  /** Idle containers the pool held when the 4 clients started. */
  let headStart = 0;
  try {
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    const daemon = await startDaemon(home);
    const shim = await connectShim(home, { name: "bench", version: "1" });
    await shim.run(CODE);
    // A rested pool at its default size: what the first burst of a session meets. Waited for
    // by a condition (every container started and idle), however long a busy machine takes.
    const floor = SETTINGS_BOUNDS.warmPoolSize.default;
    const rested = () => poolReady(docker, home, floor);
    // Whatever size the pool grew to, refilled and idle: what a run right after a burst meets
    // when the pool has kept up (it shrinks only after a minute without runs).
    const refilled = () => poolReady(docker, home, null);
    // The baseline of each part is measured right around it, the pool idle, so that load
    // moving during the bench weighs on both sides of each ratio alike.
    const cold = async (): Promise<void> => {
      const runs: number[] = [];
      for (let i = 0; i < BASELINE_ROUNDS; i++) runs.push(await dockerRunOnce(image, CODE));
      plain.push(runs);
    };
    await rested();
    await cold();
    await rested();
    burst1 = await backToBack(shim, BURST);
    await refilled();
    await cold();
    // The pool has grown with the first burst (it shrinks when idle).
    burst2 = await backToBack(shim, BURST);
    const others = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) => connectShim(home, { name: `c${i}`, version: "1" })),
    );
    await refilled();
    await cold();
    headStart = (await homeContainers(docker, home)).length;
    clients = (await Promise.all(others.map((c) => backToBack(c, BURST)))).flat();
    // Right after, once the first daemon's pool is idle again (its refills would load the
    // other side), the same from the daemon with no pool (it holds no container while idle).
    await refilled();
    const noPool = await coldDaemon();
    const coldShims = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        connectShim(noPool.home, { name: `n${i}`, version: "1" }),
      ),
    );
    coldClients = (await Promise.all(coldShims.map((c) => backToBack(c, BURST)))).flat();
    await noPool.daemon.stop();
    await cold();
    const floodShims = await Promise.all(
      Array.from({ length: FLOOD_CLIENTS }, (_, i) =>
        connectShim(home, { name: `f${i}`, version: "1" }),
      ),
    );
    // The engine's limit is measured just before and just after the flood (the machine's load
    // moves), and the flood compared with their mean.
    const engineBefore = await engineLimit(image);
    const t = performance.now();
    const outcomes = await Promise.allSettled(
      floodShims.flatMap((c) =>
        // Each client sends its runs one after another, as an agent's loop does.
        [backToBack(c, FLOOD_RUNS)],
      ),
    );
    flood = {
      runs: FLOOD_CLIENTS * FLOOD_RUNS,
      seconds: (performance.now() - t) / 1000,
      failed: outcomes.filter((o) => o.status === "rejected").length,
    };
    engines = [engineBefore, await engineLimit(image)];
    coldRuns = await sandboxLimit(image);
    engine = (engines[0]! + engines[1]!) / 2;
    await daemon.stop();
  } finally {
    await cleanUpHosts(docker);
  }
  const around = (part: number): number => median([...plain[part]!, ...plain[part + 1]!]);
  const load = os.loadavg()[0] ?? 0;
  console.log(
    `warm pool under bursts (daemon defaults), load average ${loadBefore.toFixed(1)} -> ${load.toFixed(1)} on ${os.cpus().length} cores`,
  );
  console.log(
    `cold hardened \`docker run -i\` print(1) before, between and after the parts (baseline): ` +
      plain.map((runs) => `${median(runs).toFixed(0)} ms`).join(", "),
  );
  console.log(
    line(
      `\`print(1)\` via shim, ${BURST} back-to-back runs from a rested pool, median`,
      median(burst1),
      around(0),
      0.2,
    ),
  );
  console.log(
    line(
      `\`print(1)\` via shim, ${BURST} more back-to-back right after (pool grown), median`,
      median(burst2),
      around(1),
      0.2,
    ),
  );
  // Each run's time, in order: a median hides whether runs were all middling or fast and slow
  // in turn (warm hits between cold starts), which is what a change to the pool moves.
  const each = (times: readonly number[]): string => times.map((t) => t.toFixed(0)).join(" ");
  console.log(`  each run, ms: first burst ${each(burst1)}; after growth ${each(burst2)}`);
  console.log(`  each run of the ${CLIENTS} clients, ms, client by client: ${each(clients)}`);
  console.log(
    line(
      `\`print(1)\` via shim, ${CLIENTS} clients x ${BURST} back-to-back runs at once, median`,
      median(clients),
      around(2),
      0.2,
    ),
  );
  console.log(`  each run of the ${CLIENTS} clients with no pool, ms: ${each(coldClients)}`);
  // Why the 4 clients' goal cannot be met on this engine, from figures of this run: every run
  // needs a fresh container, and the pool's idle ones at the start cover only the first few, so
  // the burst lasts at least (runs - head start) / the engine's rate (measured 8 at a time, its
  // best), and each client's runs take that over its BURST runs on average. Deferring `docker
  // rm` does not raise the rate (bench/deferred-remove.ts).
  const engineMean = (engines[0]! + engines[1]!) / 2;
  const fresh = CLIENTS * BURST - headStart;
  const bound = (fresh / engineMean / BURST) * 1000;
  const mean = clients.reduce((a, b) => a + b, 0) / Math.max(1, clients.length);
  const needed = fresh / BURST / ((0.2 * around(2)) / 1000);
  console.log(
    `  engine bound: ${fresh} fresh containers (${CLIENTS * BURST} runs, ${headStart} idle at the start) at the engine's ${engineMean.toFixed(2)}/s, over ${BURST} runs per client: >= ${bound.toFixed(0)} ms per run on average = ${(bound / around(2)).toFixed(2)}x the cold \`docker run\` (measured mean ${mean.toFixed(0)} ms); 0.2x would need an engine starting and removing ${needed.toFixed(1)} containers/s`,
  );
  report({
    what: `engine bound of \`print(1)\`, ${CLIENTS} clients x ${BURST} back-to-back runs: the fresh containers past the pool's idle ones / the engine's limit, per run (average)`,
    value: bound,
    baseline: around(2),
    baselineWhat: AROUND,
    note: `measured mean ${mean.toFixed(0)} ms; 0.2x needs >= ${needed.toFixed(1)} containers/s from the engine`,
  });
  report({
    what: `\`print(1)\`, ${CLIENTS} clients x ${BURST} back-to-back runs at once via shim and the pool, median`,
    value: median(clients),
    baseline: median(coldClients),
    baselineWhat: `the same ${CLIENTS} clients' runs, right after, via shim and a daemon with no warm pool (every run cold)`,
    note: "what the pool gives several clients at once: both are bound by the engine's container starts",
  });
  const rate = (flood.runs - flood.failed * FLOOD_RUNS) / flood.seconds;
  const ratio = rate / engine;
  console.log(
    `engine limit: ${ENGINE_CONTAINERS} hardened containers started+removed, ${ENGINE_PARALLEL} at a time: ${engine.toFixed(2)}/s (before the flood ${engines[0]?.toFixed(2)}/s, after ${engines[1]?.toFixed(2)}/s)`,
  );
  console.log(
    `(for reference: ${ENGINE_CONTAINERS} cold print(1) runs straight through the sandbox, ${ENGINE_PARALLEL} at a time, no host: ${coldRuns.toFixed(2)}/s)`,
  );
  console.log(
    `${FLOOD_CLIENTS} clients x ${FLOOD_RUNS} runs: ${rate.toFixed(2)} runs/s (${flood.failed} clients failed) = ${ratio.toFixed(2)}x the engine limit  goal >= 0.8x: ${ratio >= 0.8 ? "met" : "NOT met"}`,
  );
  report({
    what: `\`print(1)\` via shim, ${FLOOD_CLIENTS} clients x ${FLOOD_RUNS} back-to-back runs at once: throughput`,
    value: rate,
    unit: "runs/s",
    baseline: engine,
    baselineWhat: `the engine's limit: hardened containers started and removed, ${ENGINE_PARALLEL} at a time (mean of just before and just after)`,
    note: "goal >= 0.8x",
  });
}

await main();
