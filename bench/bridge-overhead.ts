// What one sequential call of a fast tool costs through Code Mode, next to the same call made
// directly with the MCP SDK's Client, in the same run. The tool is the toy server's `echo`.
// - direct: the SDK's Client over stdio to its own toy server process, one call after another.
// - through the daemon (the path users get): a real `codemode daemon` and an MCP client over
//   `codemode shim`; each round is one run_python whose Python loop times its calls of
//   `toy__echo` (bridge-overhead-daemon.ts). Every check and the audit log are as the app has
//   them.
// - in process: the engine, bridge, sandbox and audit log of this checkout in this process
//   (bridge-overhead-sides.ts), the same Python loop timed around each `await`, once with the
//   real audit writer (AuditRecorder -> AuditLog with fsync) taking every call's entry and once
//   with the entries discarded: the difference is what the audit log costs a call.
// Two floors run beside them (line-echo-floor.ts): one line to a Python echo process and back,
// over pipes and through a sandbox container's attach stream; no bridge, no server, no JSON
// work. What Code Mode adds to a direct call cannot be less than the Docker floor, so the bound
// is printed beside the goal: per round, the direct call plus the Docker floor of the same round
// ("structural floor"). The daemon's rows give their ratio to it (goal 1.2x) beside their ratio
// to the direct call. The "chained floor" makes those same two trips in turn from one process
// (a line through the attach, then the direct call), as a Code Mode call does; it costs more
// than their sum measured apart, since each process then waits on two others rather than one.
// Between the two, "the runner alone": the same Python loop in a sandbox whose host answers each
// call at once (no bridge, no server, no audit), so its excess over the Docker floor is the
// runner's own work as the container runs it, and Code Mode's excess over it is the host's.
// Rounds alternate between the sides, so a busy machine weighs on all of them alike. Wall
// times on a busy machine swing widely; the host's own CPU time per call (process.cpuUsage
// over the round, or the daemon's from /proc, divided by its calls) is printed beside them.
// With CODEMODE_BEFORE_CHECKOUT set to another built checkout (e.g. a `git worktree add` of an
// older main, with node_modules, after `npm run build`), its daemon, engine, bridge, audit log
// and sandbox image (runner.py) run as more sides in the same rounds ("before"), so a change to
// the call path is measured before and after in one run:
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/bridge-overhead.ts
//
// BENCH_SIDES=daemon,floors runs just those (after and before): sides are direct, daemon,
// in-process, runner, floors.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import os from "node:os";
import path from "node:path";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { assertBuilt, repoRoot } from "../test-support/processes.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { dockerEcho, echoRound, pipeEcho } from "./line-echo-floor.js";
import { median } from "./stats.js";
import { report } from "./report.js";
import { codeModeSides, loadCallPath, type CodeModeSides } from "./bridge-overhead-sides.js";
import { daemonSide, type DaemonSide } from "./bridge-overhead-daemon.js";
import { echoLoopCode } from "./echo-loop.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 150);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARM_UP = 20;
const SIDES = new Set(
  (process.env.BENCH_SIDES ?? "direct,daemon,in-process,runner,floors").split(","),
);
SIDES.add("direct"); // every ratio is to it
if (SIDES.has("daemon")) SIDES.add("floors"); // the daemon's goal is against the floor
/** The daemon's goal: its call at most this many times the structural floor. */
const FLOOR_GOAL = 1.2;

const LOOP = echoLoopCode(WARM_UP, CALLS);

async function directCall(client: Client): Promise<void> {
  const result = await client.callTool({ name: "echo", arguments: { text: "x" } });
  if (result.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`);
}

async function directRound(client: Client): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + CALLS; i++) {
    const t = performance.now();
    await directCall(client);
    if (i >= WARM_UP) times.push(performance.now() - t);
  }
  return median(times);
}

/** One line through the container's attach and back, then the direct call: both trips in turn. */
async function chainedRound(
  echo: { roundTrip(): Promise<number> },
  client: Client,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + CALLS; i++) {
    const t = performance.now();
    await echo.roundTrip();
    await directCall(client);
    if (i >= WARM_UP) times.push(performance.now() - t);
  }
  return median(times);
}

async function main(): Promise<void> {
  assertToyServerBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  const inProcess = SIDES.has("in-process") || SIDES.has("runner");
  const after: CodeModeSides | null = inProcess
    ? await codeModeSides(await loadCallPath(repoRoot), {
        docker: status.docker,
        engine: status.engine,
        image,
        calls: WARM_UP + CALLS,
      })
    : null;
  // The before side runs its own checkout's runner: a change to runner.py is part of the call
  // path too. Its image is built here (from the cache when Docker has it: the tag follows
  // the content).
  const before: CodeModeSides | null =
    beforeDir && inProcess
      ? await codeModeSides(await loadCallPath(path.resolve(beforeDir)), {
          docker: status.docker,
          engine: status.engine,
          image: await status.engine.buildImage(
            readContext(path.join(path.resolve(beforeDir), "sandbox-image")),
          ),
          calls: WARM_UP + CALLS,
        })
      : null;
  const direct = new Client({ name: "bench-direct", version: "1" });
  const loop = async (which: CodeModeSides, audited: boolean | "bare"): Promise<number> => {
    const result = await (audited === "bare" ? which.runBare(LOOP) : which.run(LOOP, audited));
    if (result.error !== null) throw new Error(`run failed: ${result.error}`);
    return Number(result.stdout.trim());
  };
  const names = [
    "direct",
    "daemon",
    "beforeDaemon",
    "audited",
    "unaudited",
    "beforeAudited",
    "beforeUnaudited",
    "pipeFloor",
    "dockerFloor",
    "structuralFloor",
    "chainedFloor",
    "bareRunner",
    "beforeBareRunner",
  ] as const;
  type Side = (typeof names)[number];
  const sides = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Side, number[]>;
  const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Side, number[]>;
  const pipeFloor = SIDES.has("floors") ? pipeEcho() : null;
  const dockerFloor = SIDES.has("floors") ? await dockerEcho(status.docker, image) : null;
  let daemon: DaemonSide | null = null;
  let beforeDaemon: DaemonSide | null = null;
  /** Runs one round, noting the host's CPU time per call (ms) beside what it returns. */
  const timed = async (side: Side, round: () => Promise<number>): Promise<void> => {
    const before = process.cpuUsage();
    sides[side].push(await round());
    const used = process.cpuUsage(before);
    cpu[side].push((used.user + used.system) / 1000 / (WARM_UP + CALLS));
  };
  const daemonRound = async (side: Side, which: DaemonSide): Promise<void> => {
    const { ms, cpuMs } = await which.round();
    sides[side].push(ms);
    cpu[side].push(cpuMs);
  };
  try {
    if (SIDES.has("daemon")) {
      assertBuilt();
      const options = { docker: status.docker, calls: CALLS, warmUp: WARM_UP };
      daemon = await daemonSide(repoRoot, options);
      if (beforeDir) beforeDaemon = await daemonSide(path.resolve(beforeDir), options);
    }
    await after?.open();
    await before?.open();
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [TOY_SERVER_JS] }),
    );
    for (let round = 0; round < ROUNDS; round++) {
      await timed("direct", () => directRound(direct));
      // Which daemon goes first alternates, so neither always follows the other's refill.
      const daemons: [Side, DaemonSide | null][] = [
        ["daemon", daemon],
        ["beforeDaemon", beforeDaemon],
      ];
      if (round % 2 === 1) daemons.reverse();
      for (const [side, which] of daemons) if (which !== null) await daemonRound(side, which);
      if (before !== null) {
        if (SIDES.has("in-process")) {
          await timed("beforeUnaudited", () => loop(before, false));
          await timed("beforeAudited", () => loop(before, true));
        }
        if (SIDES.has("runner")) await timed("beforeBareRunner", () => loop(before, "bare"));
      }
      if (after !== null) {
        if (SIDES.has("in-process")) {
          await timed("unaudited", () => loop(after, false));
          await timed("audited", () => loop(after, true));
        }
        if (SIDES.has("runner")) await timed("bareRunner", () => loop(after, "bare"));
      }
      if (pipeFloor !== null && dockerFloor !== null) {
        await timed("pipeFloor", () => echoRound(pipeFloor, CALLS, WARM_UP));
        await timed("dockerFloor", () => echoRound(dockerFloor, CALLS, WARM_UP));
        await timed("chainedFloor", () => chainedRound(dockerFloor, direct));
      }
    }
  } finally {
    await Promise.allSettled([
      direct.close(),
      after?.close(),
      before?.close(),
      pipeFloor?.close(),
      dockerFloor?.close(),
      daemon?.close(),
      beforeDaemon?.close(),
    ]);
  }
  // The least a Code Mode call can cost here, round by round: the host's own call to the server
  // (the direct call) plus one line each way across the container boundary (the Docker floor).
  for (const which of [sides, cpu]) {
    which.structuralFloor = which.dockerFloor.map((docker, i) => (which.direct[i] ?? NaN) + docker);
  }
  const base = median(sides.direct);
  const cpuBase = median(cpu.direct);
  const floor = median(sides.structuralFloor);
  // The fastest round is the one others disturbed least: the nearest to an idle machine.
  const fastestBase = Math.min(...sides.direct);
  const cpuNote = (side: Side): string => {
    const host = median(cpu[side]);
    return Number.isFinite(host)
      ? `host CPU per call ${(host / cpuBase).toFixed(2)}x the direct call's`
      : "host CPU not measured";
  };
  const show = (label: string, side: Side, extraNote = ""): void => {
    if (sides[side].length === 0) return;
    const value = median(sides[side]);
    const host = median(cpu[side]);
    // The baseline's own row would read 1.00x: it is named beside every other row instead.
    if (side !== "direct") {
      report({
        what: `one sequential call of a fast tool (toy echo), ${label}, wall time`,
        value,
        baseline: base,
        baselineWhat: "the same call made directly with the MCP SDK's Client over stdio",
        note: `median of ${CALLS} calls x ${ROUNDS} rounds; ${cpuNote(side)}${extraNote}`,
      });
    }
    console.log(
      `${label.padEnd(48)} wall ${value.toFixed(3).padStart(6)} ms ${(value / base).toFixed(2)}x` +
        (side === "direct" || !(floor > 0)
          ? ""
          : ` (${(value / floor).toFixed(2)}x the structural floor)`) +
        `   fastest round ${Math.min(...sides[side]).toFixed(3)} ms ` +
        `${(Math.min(...sides[side]) / fastestBase).toFixed(2)}x` +
        `   host CPU ${host.toFixed(3)} ms ${(host / cpuBase).toFixed(2)}x` +
        `   (wall rounds: ${sides[side].map((v) => v.toFixed(3)).join(", ")})`,
    );
  };
  /** A daemon side against the structural floor of the same rounds: the goal's own ratio. */
  const showAgainstFloor = (label: string, side: Side): void => {
    // Without the floors' side (BENCH_SIDES) there is no floor to set it against.
    if (sides[side].length === 0 || sides.structuralFloor.length === 0) return;
    const perRound = sides[side].map((v, i) => v / (sides.structuralFloor[i] ?? NaN));
    report({
      what: `one sequential call of a fast tool (toy echo), ${label}, wall time`,
      value: median(sides[side]),
      baseline: floor,
      baselineWhat:
        "the structural floor: the direct call + one line through a sandbox container's attach, same rounds",
      note:
        `median of ${CALLS} calls x ${ROUNDS} rounds; goal ${FLOOR_GOAL}x; ` +
        `${(median(sides[side]) / base).toFixed(2)}x the direct call; ` +
        `per round ${perRound.map((r) => r.toFixed(2)).join(", ")}x the floor; ` +
        `the chained floor is ${(median(sides.chainedFloor) / floor).toFixed(2)}x`,
    });
  };
  console.log(
    `one sequential call of a fast tool (toy echo): median of ${CALLS} calls per round, ` +
      `median of ${ROUNDS} rounds`,
  );
  show("direct: MCP SDK Client over stdio (baseline)", "direct");
  show("through the daemon: shim client, run_python loop", "daemon");
  showAgainstFloor("through the daemon: shim client, run_python loop", "daemon");
  if (beforeDaemon !== null) {
    show("before: through the daemon", "beforeDaemon");
    showAgainstFloor("before: through the daemon", "beforeDaemon");
  }
  show("in-process engine, audit entries discarded", "unaudited");
  show("in-process engine, audit log written", "audited");
  if (before !== null) {
    show("before: in-process engine, audit entries discarded", "beforeUnaudited");
    show("before: in-process engine, audit log written", "beforeAudited");
  }
  show("the runner alone: host answering at once, no bridge", "bareRunner");
  if (before !== null) show("before: the runner alone", "beforeBareRunner");
  show("floor: a line to Python and back over pipes", "pipeFloor");
  show("floor: the same through a sandbox container's attach", "dockerFloor");
  show(
    "structural floor: the direct call + that attach floor",
    "structuralFloor",
    "; the least a Code Mode call can cost with a container boundary",
  );
  show(
    "chained floor: that attach line, then the direct call, in turn",
    "chainedFloor",
    "; the same two trips made one after the other from one process, as a call makes them",
  );
  console.log(`load average ${os.loadavg()[0]?.toFixed(1) ?? "?"}`);
}

await main();
