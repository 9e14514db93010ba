// A query through the index: only the entries the index points at are read from the log, and
// each one is checked against what the index recorded for it (a line starting and ending where
// it said, with the seq it said) before the filter is asked about it again.
import { open, type FileHandle } from "node:fs/promises";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import { AUDIT_KINDS } from "../../../shared/audit-entry.js";
import { readAt, AUDIT_READ_CHUNK_BYTES, AUDIT_CLOCK_SKEW_MS } from "./audit-files.js";
import { isErrno } from "../util/errno.js";
import type { AuditIndex } from "./audit-index.js";
import { intersectSorted } from "./audit-index-columns.js";
import type { FileIndex } from "./audit-index-file.js";
import { parseEntry, type CompiledFilter } from "./audit-filter-compile.js";

/** The index and the log disagree; the index has been dropped. */
export class StaleIndexError extends Error {}

export async function* indexedNewestFirst(
  index: AuditIndex,
  filter: CompiledFilter,
  before: number,
): AsyncGenerator<AuditEntry> {
  const files = await index.refresh();
  const stopBelowMs = filter.fromMs - AUDIT_CLOCK_SKEW_MS;
  const kindCodes =
    filter.kinds === null
      ? null
      : new Set(AUDIT_KINDS.flatMap((kind, code) => (filter.kinds?.has(kind) ? [code] : [])));
  for (let position = files.length - 1; position >= 0; position -= 1) {
    const indexed = files[position];
    if (indexed === undefined || indexed.file.firstSeq >= before) continue;
    const { file, index: fileIndex } = indexed;
    const lists = fileIndex.carrying(filter.keys);
    const candidates = lists === null ? null : intersectSorted(lists);
    const texts = filter.needle === null ? null : await fileIndex.textMatches(filter.needle);
    const seqs = fileIndex.seqs.view();
    const times = fileIndex.tsMs.view();
    const kinds = fileIndex.kinds.view();
    let handle: FileHandle | null = null;
    const block: Block = { start: 0, bytes: Buffer.alloc(0) };
    try {
      const last = candidates === null ? fileIndex.count - 1 : candidates.length - 1;
      for (let k = last; k >= 0; k -= 1) {
        const entry = candidates === null ? k : (candidates[k] ?? 0);
        if ((seqs[entry] ?? 0) >= before) continue;
        const ms = times[entry] ?? 0;
        if (ms < stopBelowMs) return;
        if (ms >= filter.toMs) continue;
        if (kindCodes !== null && !kindCodes.has(kinds[entry] ?? 0)) continue;
        if (texts !== null && texts[entry] !== 1) continue;
        try {
          handle ??= await open(file.path, "r");
        } catch (error) {
          // Retention deleted the file after the index was refreshed: it had nothing to keep.
          if (isErrno(error, "ENOENT")) break;
          throw error;
        }
        const found = await readChecked(handle, block, fileIndex, entry);
        if (found === "stale") {
          await index.invalidate(fileIndex.name);
          throw new StaleIndexError(`the index of ${fileIndex.name} disagrees with the log`);
        }
        if (found !== null && found.seq < before && filter.entry(found)) yield found;
      }
    } finally {
      await handle?.close();
    }
  }
}

/** The bytes last read from a file; newest-first reads of nearby entries come from it. */
interface Block {
  start: number;
  bytes: Buffer;
}

/** The entry the index says is at `entry`; null for a line that is not a valid entry (a scan skips it too). */
async function readChecked(
  handle: FileHandle,
  block: Block,
  fileIndex: FileIndex,
  entry: number,
): Promise<AuditEntry | null | "stale"> {
  const offset = fileIndex.offsets.at(entry);
  const length = fileIndex.lengths.at(entry);
  // The line with the newline before it (none at the file's start) and the one after it.
  const from = Math.max(0, offset - 1);
  const to = offset + length + 1;
  if (from < block.start || to > block.start + block.bytes.length) {
    // Entries are read newest first: one read also brings the lines before this one.
    block.start = Math.max(0, Math.min(from, to - AUDIT_READ_CHUNK_BYTES));
    block.bytes = await readAt(handle, block.start, to - block.start);
    if (block.bytes.length !== to - block.start) return "stale";
  }
  const bytes = block.bytes.subarray(from - block.start, to - block.start);
  if (bytes.at(-1) !== 0x0a || (offset > 0 && bytes[0] !== 0x0a)) return "stale";
  const text = bytes.toString("utf8", offset - from, bytes.length - 1);
  let seq: unknown;
  try {
    seq = (JSON.parse(text) as { seq?: unknown } | null)?.seq;
  } catch {
    return "stale";
  }
  if (seq !== fileIndex.seqs.at(entry)) return "stale";
  return parseEntry(text);
}
