// Exports for people outside the app: JSONL for tools (and for verifying elsewhere: lines are
// copied byte for byte), CSV for spreadsheets. A spreadsheet runs a cell that starts like a
// formula, and the log holds text written by models and servers, so such cells are defused.
import type { Writable } from "node:stream";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import type { AuditFilter } from "../../../shared/audit-query-types.js";
import { linesForward, listAuditFiles } from "./audit-files.js";
import { compileFilter, parseEntry } from "./audit-query.js";

export type ExportFormat = "jsonl" | "csv";

/** Every field of every kind, common ones first; a kind leaves the others empty. */
export const CSV_COLUMNS = [
  "seq",
  "ts",
  "prev",
  "kind",
  "client",
  "clientVersion",
  "connectionId",
  "runId",
  "server",
  "tool",
  "serverTool",
  "decision",
  "reason",
  "detail",
  "private",
  "argBytes",
  "args",
  "resultBytes",
  "resultHash",
  "durationMs",
  "calls",
  "exitCode",
  "stopped",
  "timedOut",
  "truncated",
  "error",
  "errorType",
  "errorMessage",
  "stdoutBytes",
  "stderrBytes",
  "calledTools",
  "codeBytes",
  "codeHash",
  "code",
  "summary",
  "servers",
  "changes",
  "tag",
  "ok",
  "previousTool",
  "transport",
  "cause",
  "count",
  "tools",
  "failedSince",
  "lost",
  "files",
  "fromSeq",
  "toSeq",
  "bytes",
  "maxTotalBytes",
  "endpoint",
  "firstAt",
  "lastAt",
  "clients",
  "downMs",
  "sweptContainers",
  "warmContainers",
  "startedSeq",
  "images",
  "runtime",
  "engine",
  "requestId",
  "elicited",
  "answer",
  "by",
  "waitedMs",
  "oneByOneBytes",
  "oneByOneMediaBytes",
  "change",
  "pinnedHash",
  "heldHash",
  "notLogged",
  "unreadBytes",
  "limitBytes",
  "max",
  "refused",
  "transports",
  "from",
  "to",
  "pinned",
  "held",
  "tryId",
  "source",
  "command",
  "env",
  "toolCount",
  "workspace",
  "action",
  "path",
  "sha256",
  "kept",
  "answered",
  "now",
] as const;

// Excel reads a UTF-8 file without it as the local code page.
const BOM = "\uFEFF";
// = + - @ start a formula; tab and carriage return can hide one in some spreadsheets.
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Writes the entries matching `filter` (all by default) to `out`, oldest first. Resolves
 * with how many entries were written; `out` is left open for the caller to end. Without a
 * filter, JSONL holds every complete line as written, so it verifies like the log itself.
 */
export async function exportAudit(
  dir: string,
  format: ExportFormat,
  out: Writable,
  filter: AuditFilter = {},
): Promise<number> {
  const compiled = compileFilter(filter);
  let written = 0;
  if (format === "csv") await write(out, `${BOM}${CSV_COLUMNS.join(",")}\r\n`);
  for (const file of await listAuditFiles(dir)) {
    for await (const { bytes, complete } of linesForward(file.path)) {
      if (!complete) continue;
      if (format === "jsonl" && compiled.empty) {
        await write(out, Buffer.concat([bytes, Buffer.from("\n")]));
        written += 1;
        continue;
      }
      const text = bytes.toString("utf8");
      if (!compiled.line(text)) continue;
      const entry = parseEntry(text);
      if (entry === null || !compiled.entry(entry)) continue;
      await write(out, format === "jsonl" ? `${text}\n` : csvRow(entry));
      written += 1;
    }
  }
  return written;
}

export function csvRow(entry: AuditEntry): string {
  const fields = entry as Record<string, unknown>;
  return `${CSV_COLUMNS.map((column) => csvCell(fields[column])).join(",")}\r\n`;
}

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  // Numbers and booleans are the log's own; a negative number is a number, not a formula.
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  let text = typeof value === "string" ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One chunk, waiting for the reader when it is behind, so the export holds a chunk at a time
 * however big the log. A reader that goes away (a download cancelled) ends the export with an
 * error instead of leaving it waiting for a drain that will never come.
 */
async function write(out: Writable, chunk: string | Buffer): Promise<void> {
  if (out.destroyed || out.writableEnded) throw new Error("the export's destination was closed");
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error): void => {
      out.off("drain", onDrain);
      out.off("close", onClose);
      out.off("error", onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = (): void => settle();
    const onClose = (): void => settle(new Error("the export's destination was closed"));
    out.on("drain", onDrain);
    out.on("close", onClose);
    out.on("error", onClose);
  });
}
