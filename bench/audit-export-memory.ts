// What exporting a huge audit log costs the host's memory. One log of N entries
// (default 1,000,000; written through the real writer with syncing off), exported twice:
//
//   before: the code path of the old `audit.export` API call, in a Node process of its own:
//           the export collected into one string, then the WebSocket reply JSON.stringify'd
//           (what the UI server did with it), exactly as the old handler and transport did;
//   after:  a real `codemode daemon --ui` streaming it as a download (one-time link over the
//           WebSocket, then HTTP), the body read and dropped by this process.
//
// Each side's resident memory is sampled every 10 ms; "over idle" is the peak minus the
// process's memory just before the export began.
//
//   npm run build && npx tsx bench/audit-export-memory.ts [entries]

import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import {
  askExportLink,
  downloadSampling,
  fillAuditLog,
  rssBytes,
} from "../test-support/audit-export-download.js";
import { startUiDaemon } from "../test-support/browser.js";
import { assertHostBuilt, makeHome } from "../test-support/daemon.js";
import { repoRoot } from "../test-support/processes.js";
import { report } from "./report.js";

// The first argument that is a whole number: under `npm run bench` the arguments are run-all's
// own (`--write-docs`, `--only ...`), which once made this NaN and the bench export nothing.
const ENTRIES = Number(
  process.argv.slice(2).find((arg) => arg !== "" && [...arg].every((c) => c >= "0" && c <= "9")) ??
    1_000_000,
);
const MiB = 1024 * 1024;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;

/** The old handler's body and the old transport's send, run in a process of their own. */
function wholeReplyScript(dir: string): string {
  const exportModule = pathToFileURL(
    path.join(repoRoot, "dist/electron/host/audit/audit-export.js"),
  ).href;
  return `
    import { Writable } from "node:stream";
    import { exportAudit } from ${JSON.stringify(exportModule)};
    console.log(JSON.stringify({ idle: process.memoryUsage().rss }));
    await new Promise((r) => setTimeout(r, 200));
    try {
      const chunks = [];
      const sink = new Writable({ write(c, _e, done) { chunks.push(c.toString()); done(); } });
      await exportAudit(${JSON.stringify(dir)}, "jsonl", sink);
      const text = chunks.join("");
      const message = JSON.stringify({ type: "response", id: 1, response: { ok: true, value: { fileName: "x.jsonl", text } } });
      console.log(JSON.stringify({ ok: true, chars: message.length }));
    } catch (error) {
      console.log(JSON.stringify({ ok: false, error: String(error) }));
    }`;
}

async function before(dir: string): Promise<{ overIdle: number; outcome: string; ms: number }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", wholeReplyScript(dir)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssBytes(child.pid!));
    } catch {
      // Gone already.
    }
  }, 10);
  const started = performance.now();
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const ms = performance.now() - started;
  clearInterval(timer);
  const lines = out.trim().split("\n");
  const idle = (JSON.parse(lines[0] ?? '{"idle":0}') as { idle: number }).idle;
  const last = lines.length > 1 ? (JSON.parse(lines.at(-1)!) as Record<string, unknown>) : null;
  const outcome =
    last === null
      ? `process died (${exit.signal ?? `exit ${exit.code}`}): ${err.trim().split("\n").at(-1) ?? ""}`
      : last.ok
        ? `one reply of ${Number(last.chars).toLocaleString()} characters`
        : `failed: ${String(last.error)}`;
  return { overIdle: peak - idle, outcome, ms };
}

async function after(
  home: string,
): Promise<{ overIdle: number; outcome: string; ms: number; lines: number }> {
  const daemon = await startUiDaemon(home, 300_000);
  try {
    await new Promise((r) => setTimeout(r, 1_000));
    const idle = rssBytes(daemon.pid);
    const url = await askExportLink(daemon.port, await daemon.ticket(), { format: "jsonl" });
    const got = await downloadSampling(daemon.port, url, daemon.pid);
    return {
      overIdle: got.peakRss - idle,
      lines: got.lines,
      outcome: `HTTP ${got.status}, ${got.lines.toLocaleString()} lines, ${mib(got.bytes)}; daemon still up: ${rssBytes(daemon.pid) > 0}`,
      ms: got.ms,
    };
  } finally {
    await daemon.stop(60_000);
  }
}

assertHostBuilt();
const home = makeHome("codemode-bench-export-");
try {
  const filling = performance.now();
  await fillAuditLog(home, ENTRIES);
  console.log(
    `audit export of ${ENTRIES.toLocaleString()} entries (log written in ${((performance.now() - filling) / 1000).toFixed(1)} s)`,
  );
  const old = await before(path.join(home, "audit"));
  const streamed = await after(home);
  console.log(`  memory over idle   before ${mib(old.overIdle)}   after ${mib(streamed.overIdle)}`);
  console.log(
    `  time               before ${(old.ms / 1000).toFixed(1)} s   after ${(streamed.ms / 1000).toFixed(1)} s`,
  );
  console.log(`  before: ${old.outcome}`);
  console.log(`  after:  ${streamed.outcome}`);
  const MiB = 1024 * 1024;
  if (streamed.lines < ENTRIES)
    throw new Error(`the streamed export did not hold ${ENTRIES} entries: ${streamed.outcome}`);
  report({
    what: `host memory over idle while exporting ${ENTRIES.toLocaleString("en")} audit entries as a streamed download`,
    value: streamed.overIdle / MiB,
    unit: "MiB",
    baseline: old.overIdle / MiB,
    baselineWhat: "the old export: one WebSocket reply holding the whole export",
    note: `before: ${old.outcome}; after: ${streamed.outcome}`,
  });
} finally {
  rmSync(home, { recursive: true, force: true });
}
