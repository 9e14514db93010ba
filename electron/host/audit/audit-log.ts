// The append-only audit log: JSON Lines files in one directory, each entry carrying the hash
// of the line before it. Only one AuditLog may write a directory at a time (the app's
// single-instance lock sees to that); readers (query, verify, export) may run alongside it.
import { mkdir, open, stat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { Writable } from "node:stream";
import {
  GENESIS_PREV,
  auditEntrySchema,
  type AuditEntry,
  type AuditEntryInput,
  type AuditFilter,
  type AuditPage,
  type AuditQueryResult,
  type AuditRunDetail,
  type AuditVerifyResult,
} from "../../../shared/audit-entry.js";
import { cutUtf8 } from "../catalog/text-cut.js";
import { exportAudit, type ExportFormat } from "./audit-export.js";
import {
  TORN_SUFFIX,
  auditFileName,
  isErrno,
  linesBackward,
  listAuditFiles,
  listTornFiles,
  readAt,
  sha256Hex,
  type AuditFile,
} from "./audit-files.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { getAuditRun, queryAudit } from "./audit-query.js";
import { verifyAudit } from "./audit-verify.js";
import { CheckpointWriter, type CheckpointSigner } from "./audit-checkpoint.js";
import { openCheckpoint, type CheckpointExpectations } from "./audit-checkpoint-open.js";
import type { VerifyHeadOptions } from "./audit-verify-head.js";
import { redactDeep } from "./redaction.js";
import { pruneToSize, type SizePruned } from "./audit-size-cap.js";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AuditLogOptions {
  dir: string;
  now?: () => Date;
  /** Default AUDIT_LIMITS.defaultMaxFileBytes. */
  maxFileBytes?: number;
  /** Default AUDIT_LIMITS.defaultRetentionDays. */
  retentionDays?: number;
  /** Default AUDIT_LIMITS.defaultMaxTotalBytes: past it the oldest files are removed. */
  maxTotalBytes?: number;
  /** Sync each write before acknowledging it. Default true; false only for tests and benches. */
  fsync?: boolean;
  /** The secrets of the moment; every text of every entry is scrubbed of them. */
  secrets?: () => readonly string[];
  /** Where failures that must not stop the log go: a throwing listener, a failed cleanup. */
  onError?: (error: unknown) => void;
  /** Keeps the head outside the log (audit-checkpoint.ts); absent: no checkpoint. */
  checkpoint?: { file: string; signer?: CheckpointSigner | null } & CheckpointExpectations;
}

export type AuditListener = (entry: AuditEntry) => void;

export interface AuditLogStats {
  /** Entries made durable since open. */
  entries: number;
  writes: number;
  syncs: number;
}

/** What open() found and did. */
export interface AuditRecovery {
  /** Where the bytes of an unfinished or unreadable last line were moved, if there were any. */
  tornFile: string | null;
  tornBytes: number;
  /** Files deleted because their newest entry was older than the retention period. */
  removedByRetention: string[];
  /** Files deleted at start because the log was over its total size cap. */
  removedBySize: SizePruned | null;
  /** Why the checkpoint found at start disagreed with the log, and where it was set aside. */
  checkpointProblem: string | null;
}

interface Head {
  seq: number;
  /** sha256 of the last line as written. */
  hash: string;
  tsMs: number;
}

interface Pending {
  body: AuditEntryInput;
  /** The body as JSON, computed once at append so the write path only splices the header in. */
  bodyJson: string;
  resolve: (entry: AuditEntry) => void;
  reject: (error: unknown) => void;
}

interface Built {
  pending: Pending;
  entry: AuditEntry;
  line: Buffer;
  head: Head;
}

interface CurrentFile {
  handle: FileHandle;
  path: string;
  size: number;
}

// Fields cut to a limit of their own; any other top-level text is cut to textMaxBytes.
const FIELD_LIMITS: Record<string, number> = {
  code: AUDIT_LIMITS.codeMaxBytes,
  error: AUDIT_LIMITS.errorMaxBytes,
  args: AUDIT_LIMITS.argsMaxBytes,
};

// Hashes and enum values: no secret is in them, and a short secret that happened to match
// part of one would make the entry invalid and lose it.
const UNSCRUBBED_FIELDS = new Set([
  "kind",
  "codeHash",
  "resultHash",
  "decision",
  "stopped",
  "transport",
]);

const HEADER_PLACEHOLDER = { seq: 1, ts: new Date(0).toISOString(), prev: GENESIS_PREV };

export class AuditLog {
  readonly dir: string;
  readonly recovery: AuditRecovery;
  readonly #now: () => Date;
  readonly #fsync: boolean;
  readonly #secrets: () => readonly string[];
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<AuditListener>();
  #maxFileBytes: number;
  #retentionDays: number;
  #maxTotalBytes: number;
  #head: Head;
  #current: CurrentFile | null;
  #queue: Pending[] = [];
  #writing = false;
  #draining: Promise<void> = Promise.resolve();
  #closed = false;
  /** Set when a failed write could not be undone: appending more would corrupt the chain. */
  #broken: Error | null = null;
  #stats: AuditLogStats = { entries: 0, writes: 0, syncs: 0 };
  readonly #checkpoint: CheckpointWriter | null;
  readonly #verifyOptions: VerifyHeadOptions;

  private constructor(
    options: AuditLogOptions,
    head: Head,
    current: CurrentFile | null,
    recovery: AuditRecovery,
    checkpoint: CheckpointWriter | null,
  ) {
    this.#checkpoint = checkpoint;
    this.#verifyOptions = {
      checkpointFile: options.checkpoint?.file,
      signer: options.checkpoint?.signer ?? null,
    };
    this.dir = options.dir;
    this.#now = options.now ?? (() => new Date());
    this.#fsync = options.fsync ?? true;
    this.#secrets = options.secrets ?? (() => []);
    this.#onError = options.onError ?? (() => undefined);
    this.#maxFileBytes = positive(options.maxFileBytes, AUDIT_LIMITS.defaultMaxFileBytes);
    this.#retentionDays = positive(options.retentionDays, AUDIT_LIMITS.defaultRetentionDays);
    this.#maxTotalBytes = positive(options.maxTotalBytes, AUDIT_LIMITS.defaultMaxTotalBytes);
    this.#head = head;
    this.#current = current;
    this.recovery = recovery;
  }

  /**
   * Opens the log in `options.dir` (created if missing), picking up the chain where the last
   * file ends. A crash can leave the last line unfinished or unreadable: those bytes are moved
   * to a `.torn` file beside it, never dropped, and the chain continues from the last good
   * line. Files past the retention period are deleted.
   */
  static async open(options: AuditLogOptions): Promise<AuditLog> {
    const now = options.now ?? (() => new Date());
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const files = await listAuditFiles(options.dir);
    const torn = { tornFile: null as string | null, tornBytes: 0 };
    const newest = files.at(-1);
    if (newest !== undefined) Object.assign(torn, await setTornTailAside(newest, options.dir));

    let head: Head = { seq: 0, hash: GENESIS_PREV, tsMs: Number.NEGATIVE_INFINITY };
    // Trailing empty files (a crash between creating a file and writing to it) hold nothing.
    for (let last = files.at(-1); last !== undefined; last = files.at(-1)) {
      const line = await lastCompleteLine(last.path);
      if (line === null) {
        await unlink(last.path);
        files.pop();
        continue;
      }
      const parsed = parseHead(line);
      if (parsed === null) {
        throw new Error(
          `the audit log's last entry in ${last.name} cannot be read; run "codemode audit verify"`,
        );
      }
      head = { ...parsed, hash: sha256Hex(line) };
      break;
    }

    const opened =
      options.checkpoint === undefined
        ? null
        : await openCheckpoint(
            options.checkpoint.file,
            options.checkpoint.signer ?? null,
            { ...head, firstSeq: files[0]?.firstSeq ?? head.seq + 1 },
            options.onError ?? (() => undefined),
            options.checkpoint,
          );
    const checkpoint = opened?.writer ?? null;

    const retentionDays = positive(options.retentionDays, AUDIT_LIMITS.defaultRetentionDays);
    const { removed, kept: young } = await pruneOldFiles(
      options.dir,
      files,
      now().getTime() - retentionDays * DAY_MS,
      null,
      (firstSeq) => checkpoint?.noteRetention(firstSeq ?? head.seq + 1),
    );
    const { pruned, kept } = await pruneToSize(
      young,
      positive(options.maxTotalBytes, AUDIT_LIMITS.defaultMaxTotalBytes),
      (firstSeq) => checkpoint?.noteRetention(firstSeq),
    );

    let current: CurrentFile | null = null;
    const maxFileBytes = positive(options.maxFileBytes, AUDIT_LIMITS.defaultMaxFileBytes);
    const last = kept.at(-1);
    if (last !== undefined) {
      const size = (await stat(last.path)).size;
      if (size < maxFileBytes)
        current = { handle: await open(last.path, "a"), path: last.path, size };
    }
    const log = new AuditLog(
      options,
      head,
      current,
      {
        ...torn,
        removedByRetention: removed,
        removedBySize: pruned,
        checkpointProblem: opened?.problem ?? null,
      },
      checkpoint,
    );
    if (pruned !== null) await log.append(log.#prunedEntry(pruned));
    return log;
  }

  /** Seq of the newest durable entry; 0 for an empty log. */
  get lastSeq(): number {
    return this.#head.seq;
  }

  get stats(): AuditLogStats {
    return { ...this.#stats };
  }

  /** Settings can change while the app runs; the new values apply from the next write. */
  configure(options: {
    maxFileBytes?: number;
    retentionDays?: number;
    maxTotalBytes?: number;
  }): void {
    this.#maxFileBytes = positive(options.maxFileBytes, this.#maxFileBytes);
    this.#retentionDays = positive(options.retentionDays, this.#retentionDays);
    this.#maxTotalBytes = positive(options.maxTotalBytes, this.#maxTotalBytes);
  }

  /**
   * Adds an entry; resolves with it once it is on disk (synced). Entries are written in the
   * order append was called. Texts are scrubbed of secrets and cut to their limits here, so
   * a caller cannot write an oversized or secret-bearing line by mistake.
   */
  append(input: AuditEntryInput): Promise<AuditEntry> {
    if (this.#closed) return Promise.reject(new Error("the audit log is closed"));
    let body: AuditEntryInput;
    try {
      body = this.#prepare(input);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<AuditEntry>((resolve, reject) => {
      this.#queue.push({ body, bodyJson: JSON.stringify(body), resolve, reject });
      if (!this.#writing) {
        this.#writing = true;
        this.#draining = this.#drain();
      }
    });
  }

  /** Calls `listener` with each entry once it is durable, in seq order. Returns unsubscribe. */
  subscribe(listener: AuditListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Waits for queued entries, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#writing) await this.#draining;
    const current = this.#current;
    this.#current = null;
    await current?.handle.close();
    await this.#checkpoint?.close();
  }

  query(filter: AuditFilter = {}, page: AuditPage = {}): Promise<AuditQueryResult> {
    return queryAudit(this.dir, filter, page);
  }

  getRun(runId: string): Promise<AuditRunDetail | null> {
    return getAuditRun(this.dir, runId);
  }

  verify(head?: { seq: number; hash: string }): Promise<AuditVerifyResult> {
    return verifyAudit(this.dir, { ...this.#verifyOptions, head });
  }

  export(format: ExportFormat, out: Writable, filter?: AuditFilter): Promise<number> {
    return exportAudit(this.dir, format, out, filter);
  }

  #prepare(input: AuditEntryInput): AuditEntryInput {
    const secrets = this.#secrets();
    const cut: Record<string, unknown> = {};
    const fields: [string, unknown][] = Object.entries(input);
    for (const [key, value] of fields) {
      const clean = UNSCRUBBED_FIELDS.has(key) ? value : redactDeep(value, secrets);
      cut[key] =
        typeof clean === "string"
          ? cutUtf8(clean, FIELD_LIMITS[key] ?? AUDIT_LIMITS.textMaxBytes)
          : clean;
    }
    // Checked now, against the schema verify will use, so a bad entry is refused to its
    // caller instead of becoming a line that fails verification forever.
    const parsed = auditEntrySchema.safeParse({ ...cut, ...HEADER_PLACEHOLDER });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined ? "" : `${issue.path.join(".")}: ${issue.message}`;
      throw new TypeError(`not a valid audit entry (${where})`);
    }
    const { seq: _seq, ts: _ts, prev: _prev, ...body } = parsed.data;
    return body;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        // Everything queued while the previous write was syncing goes out in one write and
        // one sync: under load the cost of a sync is shared instead of paid per entry.
        let bytes = 0;
        let take = 0;
        for (const pending of this.#queue) {
          bytes += pending.bodyJson.length + 128;
          take += 1;
          if (bytes >= AUDIT_LIMITS.batchMaxBytes) break;
        }
        const batch = this.#queue.splice(0, take);
        try {
          await this.#commit(batch);
        } catch (error) {
          // Settling an already settled entry does nothing: this reaches only the rest.
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      // Cleared in the same turn that found the queue empty, so any later append starts a
      // new drain rather than waiting on one that has ended.
      this.#writing = false;
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    let index = 0;
    while (index < batch.length) {
      if (this.#broken !== null) break;
      const base = this.#current?.size ?? 0;
      const segment: Built[] = [];
      let head = this.#head;
      let bytes = 0;
      while (index < batch.length) {
        const built = this.#build(batch[index] as Pending, head);
        const after = base + bytes + built.line.length;
        if (base + bytes > 0 && after > this.#maxFileBytes) break;
        segment.push(built);
        bytes += built.line.length;
        head = built.head;
        index += 1;
      }
      if (segment.length === 0) {
        await this.#rotate();
        continue;
      }
      try {
        await this.#write(segment);
      } catch (error) {
        for (const pending of batch.slice(index - segment.length)) pending.reject(error);
        return;
      }
      for (const built of segment) {
        built.pending.resolve(built.entry);
        this.#notify(built.entry);
      }
    }
    const refusal = this.#broken ?? new Error("the audit log is closed");
    for (const pending of batch.slice(index)) pending.reject(refusal);
  }

  #build(pending: Pending, previous: Head): Built {
    const nowMs = this.#now().getTime();
    // Never earlier than the entry before: a clock set back must not make an honest log look
    // reordered to verify.
    const tsMs = Math.max(Number.isFinite(nowMs) ? nowMs : Date.now(), previous.tsMs);
    const seq = previous.seq + 1;
    const ts = new Date(tsMs).toISOString();
    // Same bytes as JSON.stringify({ seq, ts, prev, ...body }), without stringifying the body
    // again on the write path.
    const text = `{"seq":${seq},"ts":"${ts}","prev":"${previous.hash}",${pending.bodyJson.slice(1)}`;
    const entry: AuditEntry = { seq, ts, prev: previous.hash, ...pending.body };
    return {
      pending,
      entry,
      line: Buffer.from(`${text}\n`, "utf8"),
      head: { seq, hash: sha256Hex(text), tsMs },
    };
  }

  async #write(segment: Built[]): Promise<void> {
    if (this.#broken !== null) throw this.#broken;
    const first = segment[0];
    const last = segment.at(-1);
    if (first === undefined || last === undefined) return;
    this.#current ??= await this.#createFile(first.entry.seq, new Date(first.head.tsMs));
    const current = this.#current;
    const data = segment.length === 1 ? first.line : Buffer.concat(segment.map((b) => b.line));
    try {
      await writeAll(current.handle, data);
      this.#stats.writes += 1;
      if (this.#fsync) {
        await current.handle.datasync();
        this.#stats.syncs += 1;
      }
    } catch (error) {
      // Take back whatever part of the write landed, so the next entry still chains from the
      // last acknowledged one. If even that fails, stop: a half line followed by more entries
      // would break the chain for good.
      try {
        await current.handle.truncate(current.size);
        if (this.#fsync) await current.handle.datasync();
      } catch (undoError) {
        this.#broken = new Error("the audit log could not undo a failed write", {
          cause: undoError,
        });
      }
      throw error;
    }
    current.size += data.length;
    this.#head = last.head;
    this.#checkpoint?.noteHead(last.head);
    this.#stats.entries += segment.length;
  }

  async #createFile(firstSeq: number, at: Date): Promise<CurrentFile> {
    const file = path.join(this.dir, auditFileName(firstSeq, at));
    const handle = await open(file, "a", 0o600);
    // The new name must survive a crash as well as the bytes written under it.
    if (this.#fsync) await syncDirectory(this.dir);
    return { handle, path: file, size: (await handle.stat()).size };
  }

  async #rotate(): Promise<void> {
    const current = this.#current;
    this.#current = null;
    await current?.handle.close();
    try {
      const files = await listAuditFiles(this.dir);
      const { kept } = await pruneOldFiles(
        this.dir,
        files,
        this.#now().getTime() - this.#retentionDays * DAY_MS,
        current?.path ?? null,
        (firstSeq) => this.#checkpoint?.noteRetention(firstSeq ?? this.#head.seq + 1),
      );
      // The file just closed is the newest, so the size cap never takes it.
      const { pruned } = await pruneToSize(kept, this.#maxTotalBytes, (firstSeq) =>
        this.#checkpoint?.noteRetention(firstSeq),
      );
      // Not awaited: this runs inside the drain, which picks the entry up after this batch.
      if (pruned !== null) this.append(this.#prunedEntry(pruned)).catch(this.#onError);
    } catch (error) {
      this.#onError(error);
    }
  }

  #prunedEntry(pruned: SizePruned): AuditEntryInput {
    return { kind: "audit_pruned", ...pruned, maxTotalBytes: this.#maxTotalBytes };
  }

  #notify(entry: AuditEntry): void {
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let done = 0;
  while (done < data.length) {
    // The file is open for appending, so each write lands at the end whatever the position.
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

async function writeSynced(file: string, data: Buffer): Promise<void> {
  const handle = await open(file, "w", 0o600);
  try {
    await writeAll(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for syncing; its directory entries need no such step.
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function parseHead(line: Buffer): { seq: number; tsMs: number } | null {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { seq, ts } = value as { seq?: unknown; ts?: unknown };
  if (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1) return null;
  const tsMs = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
  if (!Number.isFinite(tsMs)) return null;
  return { seq, tsMs };
}

async function lastCompleteLine(file: string): Promise<Buffer | null> {
  for await (const line of linesBackward(file)) return line.bytes;
  return null;
}

/**
 * Moves what a crash can leave at the end of the newest file (bytes after its last newline,
 * and a last line that does not parse) into `<file>.<offset>.torn`, then cuts the file back
 * to its last good line. The copy is synced before the cut, so the bytes exist somewhere at
 * every moment.
 */
async function setTornTailAside(
  file: AuditFile,
  dir: string,
): Promise<{ tornFile: string | null; tornBytes: number }> {
  const handle = await open(file.path, "r+");
  try {
    const size = (await handle.stat()).size;
    let goodEnd = 0;
    for await (const line of linesBackward(file.path)) {
      goodEnd = line.offset + line.bytes.length + 1;
      if (parseHead(line.bytes) === null) goodEnd = line.offset;
      break;
    }
    if (goodEnd >= size) return { tornFile: null, tornBytes: 0 };
    const torn = await readAt(handle, goodEnd, size - goodEnd);
    const tornName = `${file.name}.${goodEnd}${TORN_SUFFIX}`;
    const tornPath = path.join(dir, tornName);
    await writeSynced(tornPath, torn);
    await syncDirectory(dir);
    await handle.truncate(goodEnd);
    await handle.sync();
    return { tornFile: tornName, tornBytes: torn.length };
  } finally {
    await handle.close();
  }
}

/**
 * Deletes the oldest files whose newest entry is older than `cutoffMs`, stopping at the first
 * file to keep, so what remains is always one unbroken stretch of the chain. `.torn` files go
 * by their own age.
 */
async function pruneOldFiles(
  dir: string,
  files: AuditFile[],
  cutoffMs: number,
  keep: string | null,
  /** Told the seq the log will start at (null: after the last file) before a file goes. */
  beforeRemove: (firstSeq: number | null) => Promise<void> | undefined,
): Promise<{ removed: string[]; kept: AuditFile[] }> {
  const removed: string[] = [];
  let index = 0;
  for (; index < files.length; index += 1) {
    const file = files[index] as AuditFile;
    if (file.path === keep) break;
    const newest = await newestEntryMs(file.path);
    if (newest >= cutoffMs) break;
    await beforeRemove(files[index + 1]?.firstSeq ?? null);
    await unlinkIfPresent(file.path);
    removed.push(file.name);
  }
  for (const name of await listTornFiles(dir)) {
    const tornPath = path.join(dir, name);
    const info = await stat(tornPath).catch(() => null);
    if (info !== null && info.mtimeMs < cutoffMs) {
      await unlinkIfPresent(tornPath);
      removed.push(name);
    }
  }
  return { removed, kept: files.slice(index) };
}

async function newestEntryMs(file: string): Promise<number> {
  const line = await lastCompleteLine(file);
  const parsed = line === null ? null : parseHead(line);
  // A file whose last line cannot be dated goes by when it was last written.
  return parsed?.tsMs ?? (await stat(file)).mtimeMs;
}

async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
}
