// What one hostile run costs the data directory and how soon it is stopped,
// before and after, side by side in one run. Each side is a real `codemode daemon` on its own
// temporary home with the toy server wrapped, driven by the SDK's Client over `codemode shim`
// of the same checkout. "After" is this checkout; "before" is another built checkout named by
// CODEMODE_BEFORE_CHECKOUT (e.g. a `git worktree add` of an older main, built), else skipped.
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/run-cost-flood.ts
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runResultIn, type RunResult } from "../shared/run-result.js";
import { BUDGET_FLOOD, CHUNK_FLOOD } from "../test-support/run-cost-attacks.js";
import { hostEnv, makeHome, toyServer, writeServers } from "../test-support/daemon.js";
import { dirBytes } from "../test-support/dir-size.js";
import { repoRoot } from "../test-support/processes.js";
import { report } from "./report.js";

/** The deadline each attack gets: what an unstopped run costs is what it writes by then. */
const DEADLINE_S = Number(process.env.BENCH_FLOOD_DEADLINE_S ?? 12);

interface Measured {
  grewKiB: number;
  seconds: number;
  stopped: string | null;
}

async function measure(checkout: string, code: string): Promise<Measured> {
  const bin = path.join(checkout, "bin", "codemode.js");
  const home = makeHome("codemode-bench-cost-");
  writeServers(home, { toy: toyServer() });
  const env = hostEnv(home);
  const daemon = spawn(process.execPath, [bin, "daemon"], {
    cwd: checkout,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise((resolve) => daemon.once("exit", resolve));
  try {
    await new Promise<void>((resolve, reject) => {
      let text = "";
      // Long: a daemon starting on a busy machine is slow, and the bench must not fail for that.
      const timer = setTimeout(() => reject(new Error(`no ready line:\n${text}`)), 300_000);
      daemon.stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        if (text.includes("codemode daemon: ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "shim"],
      env,
      cwd: checkout,
      stderr: "ignore",
    });
    const client = new Client({ name: "bench-flood", version: "1" });
    await client.connect(transport);
    const run = async (source: string, timeout_s?: number): Promise<RunResult> => {
      const result = (await client.callTool(
        { name: "run_python", arguments: { code: source, ...(timeout_s ? { timeout_s } : {}) } },
        undefined,
        { timeout: 120_000 },
      )) as CallToolResult;
      const run = runResultIn(result);
      if (run === undefined) throw new Error("run_python returned no result in _meta");
      return run;
    };
    await run("print(1)"); // the container start is not what is measured
    const before = dirBytes(home);
    const started = performance.now();
    const result = await run(code, DEADLINE_S);
    const seconds = (performance.now() - started) / 1000;
    const grewKiB = (dirBytes(home) - before) / 1024;
    await client.close();
    return { grewKiB, seconds, stopped: result.stopped };
  } finally {
    daemon.kill("SIGTERM");
    await exited;
    rmSync(home, { recursive: true, force: true });
  }
}

function line(label: string, m: Measured | null): string {
  if (m === null) return `${label.padEnd(10)} (set CODEMODE_BEFORE_CHECKOUT to measure)`;
  const stop = m.stopped === null ? "not stopped" : `stopped (${m.stopped})`;
  return `${label.padEnd(10)} data dir +${Math.round(m.grewKiB).toLocaleString("en")} KiB, ${stop} after ${m.seconds.toFixed(2)} s`;
}

const before = process.env.CODEMODE_BEFORE_CHECKOUT;
for (const [name, code] of [
  ["calls past the budget (gather in a loop, ToolError caught)", BUDGET_FLOOD],
  ["empty output chunks on the protocol pipe", CHUNK_FLOOD],
] as const) {
  console.log(`\n${name}, deadline ${DEADLINE_S} s`);
  const old = before ? await measure(before, code) : null;
  const now = await measure(repoRoot, code);
  console.log(line("before", old));
  console.log(line("after", now));
  const note = `${now.stopped === null ? "not stopped" : "stopped"} after ${now.seconds.toFixed(1)} s`;
  const what = `a hostile run, ${name}: growth of the data directory`;
  report(
    old === null
      ? {
          what,
          value: now.grewKiB,
          unit: "KiB",
          note: `${note}; no baseline: set CODEMODE_BEFORE_CHECKOUT to an older built checkout`,
        }
      : {
          what,
          value: now.grewKiB,
          unit: "KiB",
          baseline: old.grewKiB,
          baselineWhat: "the same run on the checkout in CODEMODE_BEFORE_CHECKOUT",
          note: `${note}; before: ${line("", old).trim()}`,
        },
  );
}
