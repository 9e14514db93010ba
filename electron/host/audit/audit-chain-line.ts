// How one entry becomes the next line of the hash chain, apart from audit-log.ts (which owns
// the queue, the files and their durability): a pure step, from the head before to the head after.
import type { AuditEntry, AuditEntryInput } from "../../../shared/audit-entry.js";
import { sha256Hex } from "../util/sha256-hex.js";
import type { Head } from "./audit-recovery.js";

export interface ChainedLine {
  entry: AuditEntry;
  /** The line as written, newline included. */
  line: Buffer;
  /** The chain's head once this line is on disk. */
  head: Head;
}

/**
 * Chains `body` after `previous`. `bodyJson` is JSON.stringify(body), computed once at append;
 * `nowMs` is the clock's reading (a non-finite one falls back to Date.now()).
 */
export function chainLine(
  body: AuditEntryInput,
  bodyJson: string,
  previous: Head,
  nowMs: number,
): ChainedLine {
  // Never earlier than the entry before: a clock set back must not make an honest log look
  // reordered to verify.
  const tsMs = Math.max(Number.isFinite(nowMs) ? nowMs : Date.now(), previous.tsMs);
  const seq = previous.seq + 1;
  const ts = new Date(tsMs).toISOString();
  // Same bytes as JSON.stringify({ seq, ts, prev, ...body }), without stringifying the body
  // again on the write path.
  const text = `{"seq":${seq},"ts":"${ts}","prev":"${previous.hash}",${bodyJson.slice(1)}`;
  const entry: AuditEntry = { seq, ts, prev: previous.hash, ...body };
  return {
    entry,
    line: Buffer.from(`${text}\n`, "utf8"),
    head: { seq, hash: sha256Hex(text), tsMs },
  };
}
