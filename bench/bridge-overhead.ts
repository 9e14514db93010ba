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
// work. What Code Mode adds to a direct call cannot be less than the Docker floor.
// Rounds alternate between the sides, so a busy machine weighs on all of them alike. Wall
// times on a busy machine swing widely; the host's own CPU time per call (process.cpuUsage
// over the round, divided by its calls) is printed beside them: it is what the host spends on
// a call (for Code Mode: the run's start and end spread over its calls, the bridge, the
// server call, the audit entry) and does not depend on how long others keep the CPU.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AuditRecorder } from "../electron/host/app/audit-recorder.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { discardBridgeEvents } from "../electron/host/bridge/bridge-events.js";
import { TaintRegistry } from "../electron/host/bridge/taint.js";
import { findDocker } from "../electron/host/docker/docker-status.js";
import { CodeModeEngine } from "../electron/host/engine/code-mode-engine.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { currentOwner } from "../electron/host/sandbox/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { singleServerConfig } from "../electron/host/servers/server-config.js";
import { ServerSet } from "../electron/host/servers/server-set.js";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { dockerEcho, echoRound, pipeEcho } from "./line-echo-floor.js";
import { median } from "./stats.js";
import { report } from "./report.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARM_UP = 20;

const LOOP = `import time
for _ in range(${WARM_UP}):
    await echo({"text": "x"})
times = []
for _ in range(${CALLS}):
    t = time.perf_counter()
    r = await echo({"text": "x"})
    times.append((time.perf_counter() - t) * 1000)
    assert r == "x", r
times.sort()
print(times[len(times) // 2])`;

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
  const auditDir = mkdtempSync(path.join(os.tmpdir(), "codemode-bench-audit-"));
  const log = await AuditLog.open({ dir: auditDir });
  const recorder = new AuditRecorder(
    (entry) => void log.append(entry),
    () => [],
  );
  const servers = new ServerSet(
    singleServerConfig(process.execPath, [TOY_SERVER_JS], {
      allow: ["echo"],
      private: [],
      env: {},
    }),
  );
  const sandbox = new Sandbox({
    docker: status.docker,
    image: imageTagFor(readContext(sandboxImageDir())),
    owner: currentOwner("codemode-bench"),
  });
  const direct = new Client({ name: "bench-direct", version: "1" });
  const engine = (audit: boolean): CodeModeEngine =>
    new CodeModeEngine({
      servers,
      sandbox,
      taint: new TaintRegistry(),
      events: audit ? recorder : discardBridgeEvents,
      runEvents: audit ? recorder : {},
      prefixWithServer: false,
      // The default budget (200) is below one round's calls; the budget costs nothing per call.
      settings: { maxCallsPerRun: WARM_UP + CALLS },
    });
  const audited = engine(true);
  const unaudited = engine(false);
  const loop = async (which: CodeModeEngine): Promise<number> => {
    const result = await which.run({ code: LOOP }, { client: "bench" });
    if (result.error !== null) throw new Error(`run failed: ${result.error}`);
    return Number(result.stdout.trim());
  };
  const sides = {
    direct: [] as number[],
    audited: [] as number[],
    unaudited: [] as number[],
    pipeFloor: [] as number[],
    dockerFloor: [] as number[],
  };
  const cpu: typeof sides = {
    direct: [],
    audited: [],
    unaudited: [],
    pipeFloor: [],
    dockerFloor: [],
  };
  const pipeFloor = pipeEcho();
  const dockerFloor = await dockerEcho(status.docker, imageTagFor(readContext(sandboxImageDir())));
  /** Runs one round, noting the host's CPU time per call (ms) beside what it returns. */
  const timed = async (side: keyof typeof cpu, round: () => Promise<number>): Promise<void> => {
    const before = process.cpuUsage();
    sides[side].push(await round());
    const used = process.cpuUsage(before);
    cpu[side].push((used.user + used.system) / 1000 / (WARM_UP + CALLS));
  };
  try {
    await servers.open();
    await direct.connect(
      new StdioClientTransport({ command: process.execPath, args: [TOY_SERVER_JS] }),
    );
    await sandbox.run({ code: "print(1)" }); // warm the engine's caches first
    for (let round = 0; round < ROUNDS; round++) {
      await timed("direct", () => directRound(direct));
      await timed("unaudited", () => loop(unaudited));
      await timed("audited", () => loop(audited));
      await timed("pipeFloor", () => echoRound(pipeFloor, CALLS, WARM_UP));
      await timed("dockerFloor", () => echoRound(dockerFloor, CALLS, WARM_UP));
    }
  } finally {
    audited.close();
    unaudited.close();
    await Promise.allSettled([
      direct.close(),
      sandbox.close(),
      servers.close(),
      pipeFloor.close(),
      dockerFloor.close(),
    ]);
    await log.close();
    rmSync(auditDir, { recursive: true, force: true });
  }
  const base = median(sides.direct);
  const cpuBase = median(cpu.direct);
  // The fastest round is the one others disturbed least: the nearest to an idle machine.
  const fastestBase = Math.min(...sides.direct);
  const show = (label: string, side: keyof typeof cpu): void => {
    const value = median(sides[side]);
    const host = median(cpu[side]);
    report({
      what: `${label}, wall`,
      value,
      baseline: base,
      note: `host CPU ${(host / cpuBase).toFixed(2)}x`,
    });
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
  show("floor: a line to Python and back over pipes", "pipeFloor");
  show("floor: the same through a sandbox container's attach", "dockerFloor");
  console.log(`load average ${os.loadavg()[0]?.toFixed(1) ?? "?"}`);
}

await main();
