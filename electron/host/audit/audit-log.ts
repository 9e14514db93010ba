// The append-only audit log: JSON Lines files in one directory, each entry carrying the hash
// of the line before it. Only one AuditLog may write a directory at a time (the app's
// single-instance lock sees to that); readers (query, verify, export) may run alongside it.
import path from "node:path";
import type { Writable } from "node:stream";
import type { AuditEntry, AuditEntryInput } from "../../../shared/audit-entry.js";
import type {
  AuditFilter,
  AuditPage,
  AuditQueryResult,
  AuditRunDetail,
  AuditVerifyResult,
} from "../../../shared/audit-query-types.js";
import { chainLine, type ChainedLine } from "./audit-chain-line.js";
import type { CheckpointWriter } from "./audit-checkpoint.js";
import { openForAppend, syncDirectory, writeAll } from "./audit-durable-write.js";
import { prepareEntry } from "./audit-entry-prepare.js";
import { exportAudit, type ExportFormat } from "./audit-export.js";
import { auditFileName, listAuditFiles } from "./audit-files.js";
import { AuditIndex } from "./audit-index.js";
import {
  AUDIT_LAZY_HOLD_MS,
  AUDIT_SYNC_MIN_INTERVAL_MS,
  AuditWritePace,
  takeBatch,
} from "./audit-write-pace.js";
import { getAuditRun, queryAudit } from "./audit-query.js";
import {
  recoverAuditLog,
  type AuditRecovery,
  type CurrentFile,
  type Head,
  type RecoveredLog,
} from "./audit-recovery.js";
import { DAY_MS, auditLimits, pruneOldFiles, type AuditLimits } from "./audit-retention.js";
import { pruneToSize, type SizePruned } from "./audit-size-cap.js";
import { verifyAudit } from "./audit-verify.js";
import type {
  AuditListener,
  AuditLogOptions,
  AuditLogStats,
  VerifyProgressListener,
} from "./audit-log-options.js";
import type { VerifyHeadOptions } from "./audit-verify-head.js";

export type { AuditRecovery } from "./audit-recovery.js";
export type {
  AuditListener,
  AuditLogOptions,
  AuditLogStats,
  VerifyProgressListener,
} from "./audit-log-options.js";

interface Pending {
  body: AuditEntryInput;
  /** The body as JSON, computed once at append so the write path only splices the header in. */
  bodyJson: string;
  resolve: (entry: AuditEntry) => void;
  reject: (error: unknown) => void;
}

interface Built extends ChainedLine {
  pending: Pending;
}

export class AuditLog {
  readonly dir: string;
  readonly recovery: AuditRecovery;
  readonly #now: () => Date;
  readonly #fsync: boolean;
  readonly #secrets: () => readonly string[];
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<AuditListener>();
  readonly #verifyListeners = new Set<VerifyProgressListener>();
  #limits: AuditLimits;
  #head: Head;
  #current: CurrentFile | null;
  #queue: Pending[] = [];
  #writing = false;
  #draining: Promise<void> = Promise.resolve();
  /** Starts the write of lazy entries nothing else has written (append's `lazy`). */
  #lazyTimer: NodeJS.Timeout | null = null;
  readonly #pace: AuditWritePace;
  #closed = false;
  /** Set when a failed write could not be undone: appending more would corrupt the chain. */
  #broken: Error | null = null;
  #stats: AuditLogStats = { entries: 0, writes: 0, syncs: 0 };
  readonly #checkpoint: CheckpointWriter | null;
  readonly #verifyOptions: VerifyHeadOptions;
  /** What queries read through; built from the log on first use when not saved beside it. */
  readonly index: AuditIndex;

  private constructor(options: AuditLogOptions, recovered: RecoveredLog) {
    this.#checkpoint = recovered.checkpoint;
    this.#verifyOptions = {
      checkpointFile: options.checkpoint?.file,
      signer: options.checkpoint?.signer ?? null,
    };
    this.dir = options.dir;
    this.#now = options.now ?? (() => new Date());
    this.#fsync = options.fsync ?? true;
    // Unsynced writes cost little: a log that does not sync (tests, benches) never waits.
    this.#pace = new AuditWritePace(
      this.#fsync ? (options.syncMinIntervalMs ?? AUDIT_SYNC_MIN_INTERVAL_MS) : 0,
    );
    this.#secrets = options.secrets ?? (() => []);
    this.#onError = options.onError ?? (() => undefined);
    this.#limits = auditLimits(options);
    this.index = new AuditIndex(options.dir, this.#onError);
    this.#head = recovered.head;
    this.#current = recovered.current;
    this.recovery = recovered.recovery;
  }

  /**
   * Opens the log in `options.dir` (created if missing), picking up the chain where the last
   * file ends (audit-recovery.ts: what a crash left is set aside, never dropped). Files past
   * the retention period or the size cap are deleted.
   */
  static async open(options: AuditLogOptions): Promise<AuditLog> {
    const recovered = await recoverAuditLog({
      dir: options.dir,
      now: options.now ?? (() => new Date()),
      limits: auditLimits(options),
      onError: options.onError ?? (() => undefined),
      checkpoint: options.checkpoint,
      fsync: options.fsync ?? true,
    });
    const log = new AuditLog(options, recovered);
    if (recovered.pruned !== null) await log.append(log.#prunedEntry(recovered.pruned));
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
    this.#limits = auditLimits(options, this.#limits);
  }

  /**
   * Adds an entry; resolves with it once it is on disk (synced). Entries are written in the
   * order append was called. Texts are scrubbed of secrets and cut to their limits here, so
   * a caller cannot write an oversized or secret-bearing line by mistake.
   *
   * A `lazy` entry starts no write of its own: it goes out with the next entry's write, at a
   * flush, or AUDIT_LAZY_HOLD_MS after it came, whichever is first. A run's start is lazy: a
   * short run's answer waits for its end's entry anyway, and one durable write then covers
   * both instead of two in a row (bench/warm-start-trace.ts).
   */
  append(input: AuditEntryInput, lazy = false): Promise<AuditEntry> {
    if (this.#closed) return Promise.reject(new Error("the audit log is closed"));
    let body: AuditEntryInput;
    try {
      body = prepareEntry(input, this.#secrets());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return new Promise<AuditEntry>((resolve, reject) => {
      this.#queue.push({ body, bodyJson: JSON.stringify(body), resolve, reject });
      if (!lazy) this.#startDrain();
      else if (!this.#writing) {
        this.#lazyTimer ??= setTimeout(() => this.#startDrain(), AUDIT_LAZY_HOLD_MS);
      }
    });
  }

  #startDrain(): void {
    if (this.#lazyTimer !== null) clearTimeout(this.#lazyTimer);
    this.#lazyTimer = null;
    if (this.#writing || this.#queue.length === 0) return;
    this.#writing = true;
    this.#draining = this.#drain();
  }

  /** What is queued is written now, not at the sync interval's end: someone waits for it. */
  flush(): void {
    this.#startDrain();
    if (this.#writing) this.#pace.hurry();
  }

  /** Calls `listener` with each entry once it is durable, in seq order. Returns unsubscribe. */
  subscribe(listener: AuditListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Waits for queued entries, then closes the file. Later appends are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    this.flush();
    while (this.#writing) await this.#draining;
    const current = this.#current;
    this.#current = null;
    await current?.handle.close();
    await this.#checkpoint?.close();
    await this.index.stopBuilding();
    await this.index.save();
  }

  query(filter: AuditFilter = {}, page: AuditPage = {}): Promise<AuditQueryResult> {
    return queryAudit(this.dir, filter, page, this.index);
  }

  getRun(runId: string): Promise<AuditRunDetail | null> {
    return getAuditRun(this.dir, runId, this.index);
  }

  verify(head?: { seq: number; hash: string }): Promise<AuditVerifyResult> {
    return verifyAudit(this.dir, {
      ...this.#verifyOptions,
      head,
      onProgress: (progress) => {
        for (const listener of this.#verifyListeners) {
          try {
            listener(progress);
          } catch (error) {
            this.#onError(error);
          }
        }
      },
    });
  }

  /** Calls `listener` as any verify of this log reads it (the Audit page's bar). Returns unsubscribe. */
  onVerifyProgress(listener: VerifyProgressListener): () => void {
    this.#verifyListeners.add(listener);
    return () => this.#verifyListeners.delete(listener);
  }

  export(format: ExportFormat, out: Writable, filter?: AuditFilter): Promise<number> {
    return exportAudit(this.dir, format, out, filter);
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        // Written from a later turn of the event loop, not inside append: a tool call's entry
        // is appended on its way back to the code, which then does not wait for the hashing
        // and the write (bench/bridge-overhead.ts). Everything queued by then (the interval
        // since the last write, or a flush) goes out in one write and one sync, in the order
        // of the appends: the cost of a sync is shared instead of paid per entry.
        await this.#pace.due();
        const batch = takeBatch(this.#queue);
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
      this.#pace.settled();
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
        if (base + bytes > 0 && after > this.#limits.maxFileBytes) break;
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
    const chained = chainLine(pending.body, pending.bodyJson, previous, this.#now().getTime());
    return { pending, ...chained };
  }

  async #write(segment: Built[]): Promise<void> {
    if (this.#broken !== null) throw this.#broken;
    const first = segment[0];
    const last = segment.at(-1);
    if (first === undefined || last === undefined) return;
    this.#current ??= await this.#createFile(first.entry.seq, new Date(first.head.tsMs));
    const current = this.#current;
    const data = segment.length === 1 ? first.line : Buffer.concat(segment.map((b) => b.line));
    this.#pace.started();
    try {
      await writeAll(current.handle, data);
      this.#stats.writes += 1;
      if (this.#fsync) {
        // A file opened with O_DSYNC (openForAppend) has its data on disk once the write returns.
        if (!current.syncedWrites) await current.handle.datasync();
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
    const opened = await openForAppend(file, this.#fsync);
    // The new name must survive a crash as well as the bytes written under it.
    if (this.#fsync) await syncDirectory(this.dir);
    return { ...opened, path: file, size: (await opened.handle.stat()).size };
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
        this.#now().getTime() - this.#limits.retentionDays * DAY_MS,
        current?.path ?? null,
        (firstSeq) => this.#checkpoint?.noteRetention(firstSeq ?? this.#head.seq + 1),
      );
      // The file just closed is the newest, so the size cap never takes it.
      const { pruned } = await pruneToSize(kept, this.#limits.maxTotalBytes, (firstSeq) =>
        this.#checkpoint?.noteRetention(firstSeq),
      );
      // Not awaited: this runs inside the drain, which picks the entry up after this batch.
      if (pruned !== null) this.append(this.#prunedEntry(pruned)).catch(this.#onError);
    } catch (error) {
      this.#onError(error);
    }
  }

  #prunedEntry(pruned: SizePruned): AuditEntryInput {
    return { kind: "audit_pruned", ...pruned, maxTotalBytes: this.#limits.maxTotalBytes };
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
