// `codemode audit verify`: walks every line of every file, oldest first, and names the first
// entry that was edited, removed, reordered or forged. Each file's name carries the seq of its
// first entry, so entries cut from the start of a file (the oldest file included) show as a
// file that no longer starts where its name says. Retention removes whole files only, so a log
// that starts later than seq 1 at a file boundary is retention doing its job.
import { GENESIS_PREV, auditEntrySchema, type AuditEntryOf } from "../../../shared/audit-entry.js";
import {
  type AuditVerifyProgress,
  type AuditVerifyResult,
} from "../../../shared/audit-query-types.js";
import { stat } from "node:fs/promises";
import {
  lineBatchesForward,
  listAuditFiles,
  listTornFiles,
  type AuditFile,
  AUDIT_CLOCK_SKEW_MS,
} from "./audit-files.js";
import { sha256Hex } from "../util/sha256-hex.js";
import { checkHeads, readHeads, wantedSeqs, type VerifyHeadOptions } from "./audit-verify-head.js";
import { MiB } from "../util/units.js";

/** Verify reads the log in chunks of this size. */
export const AUDIT_VERIFY_READ_CHUNK_BYTES = 4 * MiB;

/** Verify reports its progress at most this often. */
export const AUDIT_VERIFY_PROGRESS_MS = 200;

type Bad = { file: string; line: number; seq: number | null; problem: string };

interface Checked {
  file: string;
  line: number;
  seq: number;
  hash: string;
  tsMs: number;
}

/**
 * A `prev` that does not match says that this entry or the one before it changed. Which one
 * shows at the next line: if it still chains to this one, this one is as written and the one
 * before was edited.
 */
interface Mismatch {
  here: Bad;
  before: Bad;
  hash: string;
  seq: number;
}

export interface VerifyOptions extends VerifyHeadOptions {
  /** Called as the log is read, at most every AUDIT_VERIFY_PROGRESS_MS, and once at the end. */
  onProgress?: (progress: AuditVerifyProgress) => void;
}

export async function verifyAudit(
  dir: string,
  options: VerifyOptions = {},
): Promise<AuditVerifyResult> {
  const heads = await readHeads(options);
  const wanted = wantedSeqs(heads, options);
  const hashes = new Map<number, string>();
  const files = await listAuditFiles(dir);
  const progress = progressReporter(await sizes(files), options.onProgress);
  const notes: string[] = [];
  let entries = 0;
  let firstSeq: number | null = null;
  let last: Checked | null = null;
  let mismatch: Mismatch | null = null;
  // The newest size-cap removal the log recorded, named in the result so a cut start is explained.
  let pruned: AuditEntryOf<"audit_pruned"> | null = null;
  const result = (): string | null => (notes.length > 0 ? notes.join(" ") : null);
  const fail = (firstBad: Bad, good = entries): AuditVerifyResult => ({
    ok: false,
    entries: good,
    firstBad,
    note: result(),
  });

  for (const [index, file] of files.entries()) {
    const newestFile = index === files.length - 1;
    let entriesInFile = 0;
    // Read in big chunks, every line of a chunk checked without awaiting in between.
    lines: for await (const batch of lineBatchesForward(file.path, AUDIT_VERIFY_READ_CHUNK_BYTES)) {
      progress.report(index, batch.readBytes, entries);
      for (const { bytes, line, complete } of batch.lines) {
        const at = { file: file.name, line };
        if (!complete) {
          if (!newestFile) {
            return fail({ ...at, seq: null, problem: "the file ends in the middle of a line" });
          }
          // A write in progress, or a crash the next start will set aside: not an edit.
          notes.push(
            `The last line of ${file.name} is unfinished (${bytes.length} bytes): the app was ` +
              `writing it or stopped while writing it.`,
          );
          break lines;
        }
        const hash = sha256Hex(bytes);
        let value: unknown;
        try {
          value = JSON.parse(bytes.toString("utf8"));
        } catch {
          value = undefined;
        }
        if (mismatch !== null) {
          const next = value as { seq?: unknown; prev?: unknown } | undefined;
          if (next?.prev === mismatch.hash && next.seq === mismatch.seq + 1) {
            return fail(mismatch.before, entries - 1);
          }
          return fail(mismatch.here);
        }
        if (value === undefined) return fail({ ...at, seq: null, problem: "not valid JSON" });
        const parsed = auditEntrySchema.safeParse(value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const where = issue === undefined ? "" : ` (${issue.path.join(".")}: ${issue.message})`;
          return fail({ ...at, seq: seqOf(value), problem: `not a valid audit entry${where}` });
        }
        const { seq, prev, ts } = parsed.data;
        const tsMs = Date.parse(ts);
        const here: Bad = { ...at, seq, problem: "" };

        if (entriesInFile === 0 && seq !== file.firstSeq) {
          const problem =
            seq > file.firstSeq
              ? `the file's name says it starts at seq ${file.firstSeq} but its first entry is seq ${seq}: ${seq - file.firstSeq} entr${seq - file.firstSeq === 1 ? "y was" : "ies were"} removed from its start`
              : `the file's name says it starts at seq ${file.firstSeq} but its first entry is seq ${seq}`;
          return fail({ ...here, problem });
        }
        if (last === null) {
          firstSeq = seq;
          if (seq === 1 && prev !== GENESIS_PREV) {
            return fail({ ...here, problem: "the first entry's prev is not the genesis value" });
          }
          if (seq > 1) notes.push(`Starts at seq ${seq} (older entries removed by retention).`);
        } else {
          const expected: number = last.seq + 1;
          if (seq !== expected) {
            const what =
              seq > expected
                ? `${seq - expected} entr${seq - expected === 1 ? "y" : "ies"} missing or out of order`
                : "entries out of order or repeated";
            return fail({ ...here, problem: `expected seq ${expected} but found ${seq}: ${what}` });
          }
          if (prev !== last.hash) {
            mismatch = {
              here: {
                ...here,
                problem: `prev does not match the hash of seq ${last.seq}: one of the two was changed`,
              },
              before: {
                file: last.file,
                line: last.line,
                seq: last.seq,
                problem: `changed after it was written: its hash no longer matches the prev recorded by seq ${seq}`,
              },
              hash,
              seq,
            };
            continue;
          }
          if (tsMs < last.tsMs - AUDIT_CLOCK_SKEW_MS) {
            return fail({
              ...here,
              problem: `time goes back from seq ${last.seq} to this entry by more than ${AUDIT_CLOCK_SKEW_MS / 1000} s`,
            });
          }
        }
        if (parsed.data.kind === "audit_pruned") pruned = parsed.data;
        if (wanted.has(seq)) hashes.set(seq, hash);
        entries += 1;
        entriesInFile += 1;
        last = { ...at, seq, hash, tsMs };
      }
    }
    // The log only creates a file to write its first entry into; a crash between the two can
    // leave the newest one empty, and then it must be the one the next entry would go to.
    const expectedNext = last === null ? file.firstSeq : last.seq + 1;
    if (
      mismatch === null &&
      entriesInFile === 0 &&
      (!newestFile || file.firstSeq !== expectedNext)
    ) {
      return fail({
        file: file.name,
        line: 1,
        seq: null,
        problem: `the file holds no entries, but its name says it starts at seq ${file.firstSeq}: its entries were removed`,
      });
    }
  }
  if (mismatch !== null) return fail(mismatch.here);
  progress.end(entries);

  // Only while the removed entries are indeed gone: a log that still starts before them needs no
  // word.
  if (pruned !== null && firstSeq !== null && firstSeq > pruned.fromSeq) {
    notes.push(
      `Seq ${pruned.fromSeq}-${pruned.toSeq} removed by the size cap (${pruned.files.length} file${pruned.files.length === 1 ? "" : "s"}, ${pruned.bytes} bytes: ${pruned.files.join(", ")}), recorded at seq ${pruned.seq}.`,
    );
  }
  const torn = await listTornFiles(dir);
  if (torn.length > 0) {
    notes.push(
      `${torn.length} file${torn.length === 1 ? "" : "s"} of bytes set aside after a crash: ${torn.join(", ")}.`,
    );
  }
  const checked = checkHeads(heads, options, {
    firstSeq,
    last,
    firstFile: files[0]?.name ?? null,
    hashes,
  });
  if ("bad" in checked) return fail(checked.bad);
  notes.push(...checked.notes);
  return {
    ok: true,
    entries,
    firstSeq,
    lastSeq: last?.seq ?? null,
    head: last === null ? null : { seq: last.seq, hash: last.hash },
    note: result(),
  };
}

async function sizes(files: readonly AuditFile[]): Promise<number[]> {
  return Promise.all(
    files.map(async (file) => {
      try {
        return (await stat(file.path)).size;
      } catch {
        return 0;
      }
    }),
  );
}

/** Bytes read of all the files so far, reported at most every AUDIT_VERIFY_PROGRESS_MS. */
function progressReporter(
  fileBytes: readonly number[],
  onProgress: VerifyOptions["onProgress"],
): { report(file: number, readBytes: number, entries: number): void; end(entries: number): void } {
  const totalBytes = fileBytes.reduce((sum, bytes) => sum + bytes, 0);
  const before: number[] = [];
  fileBytes.reduce((sum, bytes) => (before.push(sum), sum + bytes), 0);
  let lastAt = Number.NEGATIVE_INFINITY;
  return {
    report(file, readBytes, entries) {
      if (onProgress === undefined) return;
      const now = performance.now();
      if (now - lastAt < AUDIT_VERIFY_PROGRESS_MS) return;
      lastAt = now;
      const doneBytes = Math.min(totalBytes, (before[file] ?? 0) + readBytes);
      onProgress({ doneBytes, totalBytes, entries, done: false });
    },
    end(entries) {
      onProgress?.({ doneBytes: totalBytes, totalBytes, entries, done: true });
    },
  };
}

function seqOf(value: unknown): number | null {
  if (typeof value !== "object" || value === null) return null;
  const { seq } = value as { seq?: unknown };
  return typeof seq === "number" && Number.isSafeInteger(seq) ? seq : null;
}
