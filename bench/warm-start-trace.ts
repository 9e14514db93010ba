// Where the time of a warm `print(1)` goes between an MCP client and the sandbox: the SDK's
// Client -> `codemode shim` -> the host's socket -> the MCP session -> the run gate -> the
// engine and the warm pool -> the container (start line, the runner, its output through the
// attach stream) -> the run's end and the audit log's durable write -> the answer -> the shim ->
// the client. The host runs in this process (CodeModeHost, as the app and `codemode daemon`
// build it) so that each stage can be stamped on one clock: the bench wraps methods of the
// host's own classes, which the host then calls as usual; nothing in the host knows of it. The
// shim is a process of its own, as a client starts it. Each round waits for a rested pool
// (pool-ready.ts) and is followed by a cold hardened `docker run -i` of the same code, the
// baseline every sandbox bench uses. The headline figure, with the host in a process of its
// own as users run it, is shim-round-trip's; this one shows the stages. The stages run from one
// mark to the next, so in each round they add up to its total exactly; their medians need not
// add up to the total's median (a round slow in one stage is not slow in the others). Time the
// host spends in garbage collection during a round is reported too.
//
//   npx tsx bench/warm-start-trace.ts        (BENCH_ROUNDS=15 by default)
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { SETTINGS_BOUNDS } from "../shared/limits.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { SocketTransport } from "../electron/host/ingress/mcp/socket-transport.js";
import { HostRuns } from "../electron/host/app/host-runs.js";
import { RunGate } from "../electron/host/app/run-gate.js";
import { CodeModeEngine } from "../electron/host/core/engine/code-mode-engine.js";
import { WarmPool } from "../electron/host/sandbox/warm-pool.js";
import { SandboxContainer } from "../electron/host/sandbox/containers/sandbox-container.js";
import { HostAudit } from "../electron/host/audit/host-audit.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import {
  cleanUpHosts,
  connectShim,
  makeHome,
  startHostInProcess,
  stopHostInProcess,
  writeServers,
} from "../test-support/daemon.js";
import { DOCKER_RUN_BASELINE, dockerRunOnce } from "./docker-run-baseline.js";
import { poolReady } from "./pool-ready.js";
import { report } from "./report.js";
import { median } from "./stats.js";
import { PerformanceObserver } from "node:perf_hooks";
import { open } from "node:fs/promises";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
/** The goal for the whole round trip, as a share of the cold run. */
const GOAL = 0.02;
const CODE = "print(1)";

/** The moments of one run, on performance.now(); each set once, at its first occurrence. */
type Mark =
  | "sent"
  | "received"
  | "session"
  | "gateIn"
  | "gateOut"
  | "engine"
  | "takeIn"
  | "takeOut"
  | "startLine"
  | "done"
  | "finished"
  | "writeIn"
  | "writeOut"
  | "durableOut"
  | "answered"
  | "back";
let marks: Partial<Record<Mark, number>> | null = null;
/** Milliseconds of garbage collection during the round in progress. */
let gcMs = 0;
new PerformanceObserver((list) => {
  if (marks !== null) for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ["gc"] });
function mark(name: Mark): void {
  if (marks !== null) marks[name] ??= performance.now();
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Wraps `proto[name]`: `before` is told of each call (and its arguments), `after` of the
 * settling of what it returns (a promise's), with its value.
 */
function around(
  proto: object,
  name: string,
  before: (args: unknown[]) => void,
  after?: (value: unknown) => void,
): void {
  const target = proto as Record<string, Method>;
  const original = target[name];
  if (typeof original !== "function") throw new Error(`no method ${name} to trace`);
  target[name] = function (this: unknown, ...args: unknown[]): unknown {
    before(args);
    const value = original.apply(this, args);
    if (after !== undefined) {
      if (value instanceof Promise) void value.then(after, () => undefined);
      else after(value);
    }
    return value;
  };
}

async function traceHost(): Promise<void> {
  around(SocketTransport.prototype, "receive", ([raw]) => {
    if (typeof raw === "string" && raw.includes('"tools/call"')) mark("received");
  });
  around(SocketTransport.prototype, "send", ([message]) => {
    if (typeof message === "object" && message !== null && "result" in message) mark("answered");
  });
  around(HostRuns.prototype, "run", () => mark("session"));
  around(
    RunGate.prototype,
    "enter",
    () => mark("gateIn"),
    () => mark("gateOut"),
  );
  around(CodeModeEngine.prototype, "run", () => mark("engine"));
  around(
    WarmPool.prototype,
    "take",
    () => mark("takeIn"),
    () => mark("takeOut"),
  );
  around(SandboxContainer.prototype, "sendStart", () => mark("startLine"));
  around(SandboxContainer.prototype, "onStdout", (args) => {
    const listener = args[0] as (chunk: Buffer) => void;
    args[0] = (chunk: Buffer) => {
      if (chunk.includes('"done"')) mark("done");
      listener(chunk);
    };
  });
  around(AuditLog.prototype, "append", ([entry]) => {
    if ((entry as { kind?: unknown }).kind === "run_finished") mark("finished");
  });
  // The audit log's file writes (opened O_DSYNC on Linux: each returns once on disk); the first
  // after run_finished is the one that carries it.
  const handle = await open(process.execPath, "r");
  const fileHandle = Object.getPrototypeOf(handle) as object;
  await handle.close();
  around(
    fileHandle,
    "write",
    () => {
      if (marks?.finished !== undefined) mark("writeIn");
    },
    () => {
      if (marks?.writeIn !== undefined) mark("writeOut");
    },
  );
  // The first durable() after the done line is the one the client's answer waits on.
  around(
    HostAudit.prototype,
    "durable",
    () => undefined,
    () => {
      if (marks?.writeOut !== undefined) mark("durableOut");
    },
  );
}

/**
 * One stage: from one mark to the next, as the table names it. `outside`: a stage spent mostly
 * outside the host's process: the trips through the shim (a process the client starts; they
 * hold the client's own work too), the container (the attach and the runner's own work), and
 * the synced write (the disk). The host can shorten these only by changing the runner, the
 * shim or how it writes; it cannot skip them.
 */
const STAGES: { what: string; from: Mark; to: Mark; outside?: true }[] = [
  {
    what: "client -> shim -> host socket (the request line)",
    from: "sent",
    to: "received",
    outside: true,
  },
  {
    what: "MCP session: JSON-RPC, the SDK Server, the input check",
    from: "received",
    to: "session",
  },
  { what: "run gate: Docker up, audit log writable, a slot", from: "session", to: "engine" },
  { what: "engine: catalog, call budget, run_started", from: "engine", to: "takeIn" },
  { what: "warm pool: a ready container claimed", from: "takeIn", to: "takeOut" },
  { what: "to the start line (hooks, the line built)", from: "takeOut", to: "startLine" },
  {
    what: "sandbox: start line -> runner -> output and done lines back through the attach",
    from: "startLine",
    to: "done",
    outside: true,
  },
  {
    what: "run's end: the result built, run_finished recorded",
    from: "done",
    to: "finished",
  },
  {
    what: "audit log: to the write of the run's entries (hashed, chained)",
    from: "finished",
    to: "writeIn",
  },
  {
    what: "audit log: that write, durable (O_DSYNC)",
    from: "writeIn",
    to: "writeOut",
    outside: true,
  },
  { what: "audit log: back to the waiting run", from: "writeOut", to: "durableOut" },
  {
    what: "the answer: content rendered, written to the socket",
    from: "durableOut",
    to: "answered",
  },
  {
    what: "host socket -> shim -> client (the answer line)",
    from: "answered",
    to: "back",
    outside: true,
  },
];

/** How long one round spent in one stage; throws when the round lacks one of its marks. */
function span(marks: Partial<Record<Mark, number>>, stage: (typeof STAGES)[number]): number {
  const from = marks[stage.from];
  const to = marks[stage.to];
  if (from === undefined || to === undefined) {
    throw new Error(`a round has no "${from === undefined ? stage.from : stage.to}" mark`);
  }
  return to - from;
}

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  await traceHost();
  const home = makeHome("codemode-bench-trace-");
  writeServers(home, {});
  const rounds: Partial<Record<Mark, number>>[] = [];
  const cold: number[] = [];
  const gc: number[] = [];
  const { host } = await startHostInProcess(home);
  try {
    const shim = await connectShim(home, { name: "bench-trace", version: "1" });
    await dockerRunOnce(image, CODE); // warm the engine's caches for every path alike
    await shim.run(CODE);
    for (let i = 0; i < ROUNDS; i++) {
      await poolReady(status.docker, home, SETTINGS_BOUNDS.warmPoolSize.default);
      gcMs = 0;
      marks = {};
      mark("sent");
      const result = await shim.run(CODE);
      mark("back");
      rounds.push(marks);
      gc.push(gcMs);
      marks = null;
      if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      cold.push(await dockerRunOnce(image, CODE));
    }
    await shim.close();
  } finally {
    await stopHostInProcess(host);
    await cleanUpHosts(status.docker);
  }
  const total = median(rounds.map((m) => (m.back ?? NaN) - (m.sent ?? NaN)));
  const base = median(cold);
  report({
    what: "`run_python` `print(1)` from an MCP client through the shim, rested pool, host in the bench's process (traced)",
    value: total,
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note: `median of ${ROUNDS} rounds, each after the pool refilled; the stages below; goal ${GOAL}x`,
  });
  for (const stage of STAGES) {
    const spans = rounds.map((m) => span(m, stage));
    report({
      what: `of that: ${stage.what}`,
      value: median(spans),
      baseline: total,
      baselineWhat: "the whole round trip, as above",
      note: `rounds: ${spans.map((s) => s.toFixed(2)).join(", ")}`,
    });
  }
  const outside = rounds.map((m) =>
    STAGES.filter((stage) => stage.outside).reduce((sum, stage) => sum + span(m, stage), 0),
  );
  const goalMs = GOAL * base;
  report({
    what: "the stages spent mostly outside the host's process (the two trips through the shim, the sandbox, the synced write), summed per round",
    value: median(outside),
    baseline: base,
    baselineWhat: DOCKER_RUN_BASELINE,
    note:
      `${(median(outside) / base).toFixed(4)}x; the goal ${GOAL}x is ${goalMs.toFixed(2)} ms; ` +
      `not a floor: they hold the client's, the shim's and the runner's own work; ` +
      `rounds: ${outside.map((s) => s.toFixed(2)).join(", ")}`,
  });
  report({
    what: "of that: garbage collection in the host (overlaps the stages above)",
    value: median(gc),
    baseline: total,
    baselineWhat: "the whole round trip, as above",
    note: `rounds: ${gc.map((s) => s.toFixed(2)).join(", ")}`,
  });
}

await main();
