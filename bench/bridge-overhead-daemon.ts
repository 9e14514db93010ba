// The daemon side of bench/bridge-overhead.ts: the call path as a client gets it. A real
// `codemode daemon` of one checkout (this one, or CODEMODE_BEFORE_CHECKOUT) on a temporary home
// with the toy server wrapped, and an MCP client (the SDK's Client) over that checkout's
// `codemode shim`; each round is one run_python whose Python loop times its calls of
// `toy__echo`. Everything the app does per call is there: the full bridge (budget, name, size,
// schema, private-data rule, "ask first", pins), the audit log written and synced, the events
// the UI would get. Before each round the daemon's warm pool is left to rest (pool-ready.ts), so
// a refill importing its libraries does not share the CPU with the calls timed.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type Dockerode from "dockerode";
import { SETTINGS_BOUNDS } from "../shared/limits.js";
import { runResultIn, type RunResult } from "../shared/run-result.js";
import { hostEnv, makeHome, toyServer, writeServers } from "../test-support/daemon.js";
import { echoLoopCode } from "./echo-loop.js";
import { poolReady } from "./pool-ready.js";

/** Long: a daemon starting on a busy machine (and building its image) is slow. */
const READY_TIMEOUT_MS = 300_000;

export interface DaemonSide {
  /** One run of the loop: the median call in ms, and the daemon's CPU per call in ms (or NaN). */
  round(): Promise<{ ms: number; cpuMs: number }>;
  close(): Promise<void>;
}

/** CPU time (user + system) of a process in ms, from /proc; NaN where there is none. */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime, fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

function waitForReady(daemon: ChildProcess): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`no ready line:\n${text}`)), READY_TIMEOUT_MS);
    daemon.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("codemode daemon: ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    daemon.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`codemode daemon exited (${code}) before ready:\n${text}`));
    });
  });
}

export async function daemonSide(
  checkout: string,
  options: { docker: Dockerode; calls: number; warmUp: number },
): Promise<DaemonSide> {
  const bin = path.join(checkout, "bin", "codemode.js");
  const home = makeHome("codemode-bench-calls-");
  writeServers(home, { toy: toyServer() });
  // The loop's calls within one run's budget, whatever BENCH_CALLS says.
  const maxCallsPerRun = Math.max(
    SETTINGS_BOUNDS.maxCallsPerRun.default,
    options.calls + options.warmUp,
  );
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ maxCallsPerRun }));
  const env = hostEnv(home);
  const daemon = spawn(process.execPath, [bin, "daemon"], {
    cwd: checkout,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => daemon.once("exit", resolve));
  const client = new Client({ name: "bench-calls", version: "1" });
  const close = async (): Promise<void> => {
    await client.close().catch(() => undefined);
    if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill("SIGTERM");
    await exited;
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitForReady(daemon);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, "shim"],
        env,
        cwd: checkout,
        stderr: "ignore",
      }),
    );
    const run = async (code: string): Promise<RunResult> => {
      const result = (await client.callTool(
        { name: "run_python", arguments: { code } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      const ran = runResultIn(result);
      if (ran === undefined) throw new Error("run_python returned no result in _meta");
      if (ran.error !== null) throw new Error(`run failed: ${ran.error}`);
      return ran;
    };
    await run("print(1)"); // the image (built if this checkout's runner changed), the engine's caches
    const loop = echoLoopCode(options.warmUp, options.calls, "toy__echo");
    const pid = daemon.pid ?? 0;
    return {
      async round() {
        await poolReady(options.docker, home, SETTINGS_BOUNDS.warmPoolSize.default);
        const before = processCpuMs(pid);
        const ran = await run(loop);
        const cpuMs = (processCpuMs(pid) - before) / (options.calls + options.warmUp);
        return { ms: Number(ran.stdout.trim()), cpuMs };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
