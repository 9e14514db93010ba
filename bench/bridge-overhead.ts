// What one sequential call of a fast tool costs through Code Mode, next to the same call made
// directly with the MCP SDK's Client, in the same run. The tool is the toy server's `echo`.
// - direct: the SDK's Client over stdio to its own toy server process, one call after another.
// - Code Mode: a Python loop in a real sandbox, each call timed in Python around its `await`
//   (code -> runner -> attach stream -> host bridge -> ServerSet -> toy server, and back), once
//   with the real audit writer (AuditRecorder -> AuditLog with fsync) taking every call's
//   entry, as the app runs, and once with the entries discarded: the difference is what the
//   audit log costs a call on its way back to the code.
// Two floors run beside them (line-echo-floor.ts): one line to a Python echo process and back,
// over pipes and through a sandbox container's attach stream; no bridge, no server, no JSON
// work. What Code Mode adds to a direct call cannot be less than the Docker floor, so the bound
// is printed beside the goal: per round, the direct call plus the Docker floor of the same round
// ("structural floor"), as a ratio to the direct call. The goal is 1.5x; no bridge, runner
// or audit work, however small, takes a call under that row.
// Between the two, "the runner alone": the same Python loop in a sandbox whose host answers each
// call at once (no bridge, no server, no audit), so its excess over the Docker floor is the
// runner's own work as the container runs it, and Code Mode's excess over it is the host's.
// Rounds alternate between the sides, so a busy machine weighs on all of them alike. Wall
// times on a busy machine swing widely; the host's own CPU time per call (process.cpuUsage
// over the round, divided by its calls) is printed beside them: it is what the host spends on
// a call (for Code Mode: the run's start and end spread over its calls, the bridge, the
// server call, the audit entry) and does not depend on how long others keep the CPU.
// With CODEMODE_BEFORE_CHECKOUT set to another checkout (e.g. a `git worktree add` of an older
// main, with node_modules), its engine, bridge, audit log and sandbox image (runner.py) run as
// two more sides in the same rounds ("before"), so a change to the call path is measured
// before and after in one run:
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/bridge-overhead.ts
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import os from "node:os";
import path from "node:path";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { dockerEcho, echoRound, pipeEcho } from "./line-echo-floor.js";
import { median } from "./stats.js";
import { report } from "./report.js";
import { codeModeSides, loadCallPath, type CodeModeSides } from "./bridge-overhead-sides.js";
import { echoLoopCode } from "./echo-loop.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARM_UP = 20;

const LOOP = echoLoopCode(WARM_UP, CALLS);

async function directRound(client: Client): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + CALLS; i++) {
    const t = performance.now();
    const result = await client.callTool({ name: "echo", arguments: { text: "x" } });
    if (i >= WARM_UP) times.push(performance.now() - t);
    if (result.isError === true) throw new Error(`echo failed: ${JSON.stringify(result)}`);
  }
  return median(times);
}

async function main(): Promise<void> {
  assertToyServerBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const after = await codeModeSides(await loadCallPath(path.resolve(import.meta.dirname, "..")), {
    docker: status.docker,
    engine: status.engine,
    image,
    calls: WARM_UP + CALLS,
  });
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  // The before side runs its own checkout's runner: a change to runner.py is part of the call
  // path too. Its image is built here (from the cache when Docker has it: the tag follows
  // the content).
  const before: CodeModeSides | null = beforeDir
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
  const sides = {
    direct: [] as number[],
    audited: [] as number[],
    unaudited: [] as number[],
    beforeAudited: [] as number[],
    beforeUnaudited: [] as number[],
    pipeFloor: [] as number[],
    dockerFloor: [] as number[],
    structuralFloor: [] as number[],
    bareRunner: [] as number[],
    beforeBareRunner: [] as number[],
  };
  const cpu: typeof sides = {
    direct: [],
    audited: [],
    unaudited: [],
    beforeAudited: [],
    beforeUnaudited: [],
    pipeFloor: [],
    dockerFloor: [],
    structuralFloor: [],
    bareRunner: [],
    beforeBareRunner: [],
  };
  const pipeFloor = pipeEcho();
  const dockerFloor = await dockerEcho(status.docker, image);
  /** Runs one round, noting the host's CPU time per call (ms) beside what it returns. */
  const timed = async (side: keyof typeof cpu, round: () => Promise<number>): Promise<void> => {
    const before = process.cpuUsage();
    sides[side].push(await round());
    const used = process.cpuUsage(before);
    cpu[side].push((used.user + used.system) / 1000 / (WARM_UP + CALLS));
  };
  try {
    await after.open();
    await before?.open();
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [TOY_SERVER_JS] }),
    );
    for (let round = 0; round < ROUNDS; round++) {
      await timed("direct", () => directRound(direct));
      if (before !== null) {
        await timed("beforeUnaudited", () => loop(before, false));
        await timed("beforeAudited", () => loop(before, true));
        await timed("beforeBareRunner", () => loop(before, "bare"));
      }
      await timed("unaudited", () => loop(after, false));
      await timed("audited", () => loop(after, true));
      await timed("bareRunner", () => loop(after, "bare"));
      await timed("pipeFloor", () => echoRound(pipeFloor, CALLS, WARM_UP));
      await timed("dockerFloor", () => echoRound(dockerFloor, CALLS, WARM_UP));
    }
  } finally {
    await Promise.allSettled([
      direct.close(),
      after.close(),
      before?.close(),
      pipeFloor.close(),
      dockerFloor.close(),
    ]);
  }
  // The least a Code Mode call can cost here, round by round: the host's own call to the server
  // (the direct call) plus one line each way across the container boundary (the Docker floor).
  for (const which of [sides, cpu]) {
    which.structuralFloor = which.direct.map((direct, i) => direct + (which.dockerFloor[i] ?? NaN));
  }
  const base = median(sides.direct);
  const cpuBase = median(cpu.direct);
  // The fastest round is the one others disturbed least: the nearest to an idle machine.
  const fastestBase = Math.min(...sides.direct);
  const show = (label: string, side: keyof typeof cpu, extraNote = ""): void => {
    const value = median(sides[side]);
    const host = median(cpu[side]);
    // The baseline's own row would read 1.00x: it is named beside every other row instead.
    if (side !== "direct") {
      report({
        what: `one sequential call of a fast tool (toy echo), ${label}, wall time`,
        value,
        baseline: base,
        baselineWhat: "the same call made directly with the MCP SDK's Client over stdio",
        note: `median of ${CALLS} calls x ${ROUNDS} rounds; host CPU per call ${(host / cpuBase).toFixed(2)}x the direct call's${extraNote}`,
      });
    }
    console.log(
      `${label.padEnd(48)} wall ${value.toFixed(2).padStart(6)} ms ${(value / base).toFixed(2)}x` +
        `   fastest round ${Math.min(...sides[side]).toFixed(2)} ms ` +
        `${(Math.min(...sides[side]) / fastestBase).toFixed(2)}x` +
        `   host CPU ${host.toFixed(3)} ms ${(host / cpuBase).toFixed(2)}x` +
        `   (wall rounds: ${sides[side].map((v) => v.toFixed(2)).join(", ")})`,
    );
  };
  console.log(
    `one sequential call of a fast tool (toy echo): median of ${CALLS} calls per round, ` +
      `median of ${ROUNDS} rounds`,
  );
  show("direct: MCP SDK Client over stdio (baseline)", "direct");
  show("Code Mode, audit entries discarded", "unaudited");
  show("Code Mode, audit log written (as the app runs)", "audited");
  if (before !== null) {
    show("before: Code Mode, audit entries discarded", "beforeUnaudited");
    show("before: Code Mode, audit log written", "beforeAudited");
  }
  show("the runner alone: host answering at once, no bridge", "bareRunner");
  if (before !== null) show("before: the runner alone", "beforeBareRunner");
  show("floor: a line to Python and back over pipes", "pipeFloor");
  show("floor: the same through a sandbox container's attach", "dockerFloor");
  show(
    "structural floor: the direct call + that attach floor",
    "structuralFloor",
    "; the least a Code Mode call can cost with a container boundary (the goal: 1.5x)",
  );
  console.log(`load average ${os.loadavg()[0]?.toFixed(1) ?? "?"}`);
}

await main();
