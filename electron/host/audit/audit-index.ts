// The audit log's index, kept in memory and beside the log (`.index/`). The log stays the
// source of truth: the index is brought up to date from the log's bytes before each use,
// rebuilt from the log when its saved copy is missing, corrupt or does not end where the log
// says, and every entry it points at is read back and checked (audit-index-query.ts).
import { open, readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { listAuditFiles, readAt, type AuditFile } from "./audit-files.js";
import { isErrno } from "../util/errno.js";
import { sha256Hex } from "../util/sha256-hex.js";
import { FileIndex, type FileIndexState } from "./audit-index-file.js";
import {
  INDEX_DIR,
  loadIndex,
  logNameOf,
  readTextSection,
  removeIndex,
  saveIndex,
} from "./audit-index-store.js";

/** The newest file's index is saved beside the log after this many new entries (and at close). */
export const AUDIT_INDEX_SAVE_EVERY_ENTRIES = 10_000;

export interface IndexedFile {
  file: AuditFile;
  index: FileIndex;
}

/** What the index did since it was made: how a test or the bench tells a load from a rebuild. */
export interface AuditIndexStats {
  loaded: number;
  rebuilt: number;
  invalidated: number;
  /** Builds at start that ran to the end, and those a shutdown cut short. */
  builtInBackground: number;
  cancelled: number;
}

/** Awaited before a background build reads each file; it must settle once `signal` aborts. */
export type BuildStep = (fileName: string, signal: AbortSignal) => Promise<void>;

export class AuditIndex {
  readonly dir: string;
  readonly #onError: (error: unknown) => void;
  readonly #files = new Map<string, FileIndex>();
  #swept = false;
  #busy: Promise<unknown> = Promise.resolve();
  #building: { done: Promise<void>; stop: AbortController } | null = null;
  readonly stats: AuditIndexStats = {
    loaded: 0,
    rebuilt: 0,
    invalidated: 0,
    builtInBackground: 0,
    cancelled: 0,
  };

  constructor(dir: string, onError: (error: unknown) => void = () => undefined) {
    this.dir = dir;
    this.#onError = onError;
  }

  /** The log's files, oldest first, each with its index caught up to the file's last newline. */
  refresh(): Promise<IndexedFile[]> {
    return this.#exclusive(() => this.#refresh());
  }

  /**
   * Brings the index up to date with the log without waiting for a query (at host start, after
   * an upgrade or a crash left it missing or stale). It yields to other work as it reads;
   * queries meanwhile scan the log (`building`). `stopBuilding` cuts it short.
   * `beforeFile` lets a test hold the build at a file, whatever the machine's speed.
   */
  buildInBackground(beforeFile?: BuildStep): void {
    if (this.#building !== null) return;
    const stop = new AbortController();
    // Saved as a refresh saves: each older file once complete, the newest every
    // AUDIT_INDEX_SAVE_EVERY_ENTRIES entries and at close.
    const done = this.#exclusive(() => this.#refresh(stop.signal, beforeFile))
      .then(
        () => void (this.stats.builtInBackground += 1),
        (error: unknown) => {
          if (stop.signal.aborted) this.stats.cancelled += 1;
          else this.#onError(error);
        },
      )
      .finally(() => {
        this.#building = null;
      });
    this.#building = { done, stop };
  }

  /** Whether a background build is running: a query then answers from the log itself. */
  get building(): boolean {
    return this.#building !== null;
  }

  /**
   * Stops a background build and waits for it to let go (at shutdown). Files it finished are
   * saved; the one it was reading is left out of what is saved, and the next start goes on.
   */
  async stopBuilding(): Promise<void> {
    const building = this.#building;
    if (building === null) return;
    building.stop.abort();
    await building.done;
  }

  /** Writes what is not saved yet (at close, so the next start reads no log bytes twice). */
  save(): Promise<void> {
    return this.#exclusive(async () => {
      for (const index of this.#files.values()) await this.#save(index);
    });
  }

  /** A query found `name`'s index disagreeing with the log: forget it, rebuild on next use. */
  invalidate(name: string): Promise<void> {
    this.stats.invalidated += 1;
    this.#files.delete(name);
    return this.#exclusive(() => removeIndex(this.dir, name)).catch(this.#onError);
  }

  /** Where a failure of the index goes; the query that met it falls back to the log. */
  report(error: unknown): void {
    this.#onError(error);
  }

  /** Bytes of log file `name` the index in memory covers; null when it holds none for it. */
  coveredBytes(name: string): number | null {
    return this.#files.get(name)?.bytes ?? null;
  }

  get memoryBytes(): number {
    let bytes = 0;
    for (const index of this.#files.values()) bytes += index.memoryBytes;
    return bytes;
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(work, work);
    this.#busy = run.catch(() => undefined);
    return run;
  }

  async #refresh(signal?: AbortSignal, beforeFile?: BuildStep): Promise<IndexedFile[]> {
    const files = await listAuditFiles(this.dir);
    const names = new Set(files.map((file) => file.name));
    for (const name of this.#files.keys()) {
      if (names.has(name)) continue;
      // Retention removed the file: its index goes with it.
      this.#files.delete(name);
      await removeIndex(this.dir, name).catch(this.#onError);
    }
    if (!this.#swept) {
      this.#swept = true;
      await this.#sweep(names).catch(this.#onError);
    }
    const indexed: IndexedFile[] = [];
    for (const [position, file] of files.entries()) {
      if (beforeFile !== undefined && signal !== undefined) {
        await beforeFile(file.name, signal);
        signal.throwIfAborted();
      }
      let size: number;
      try {
        size = (await stat(file.path)).size;
      } catch (error) {
        if (isErrno(error, "ENOENT")) continue;
        throw error;
      }
      const newest = position === files.length - 1;
      let index = this.#files.get(file.name) ?? (await this.#load(file, size, newest));
      // A log file only grows; a shorter one was cut or replaced (a torn tail set aside).
      if (size < index.bytes) {
        index = new FileIndex(file.name);
        this.stats.rebuilt += 1;
      }
      if (size > index.bytes) await index.extend(file.path, signal);
      this.#files.set(file.name, index);
      if (newest) {
        if (index.unsaved >= AUDIT_INDEX_SAVE_EVERY_ENTRIES) await this.#save(index);
      } else if (index.unsaved > 0 || index.textInMemory) {
        // Complete: saved once more and its text left on disk.
        await this.#save(index, true);
      }
      indexed.push({ file, index });
    }
    return indexed;
  }

  async #load(file: AuditFile, size: number, newest: boolean): Promise<FileIndex> {
    const saved = await loadIndex(this.dir, file.name).catch(() => null);
    if (saved !== null && (await this.#agrees(file, size, saved.state))) {
      this.stats.loaded += 1;
      // Only the newest file still grows; the text of the others stays on disk until searched.
      const text = saved.text;
      return new FileIndex(
        file.name,
        saved.state,
        newest ? undefined : () => readTextSection(text),
      );
    }
    this.stats.rebuilt += 1;
    return new FileIndex(file.name);
  }

  /** Whether the log still holds, where the saved index ends, the line it ended with. */
  async #agrees(file: AuditFile, size: number, state: FileIndexState): Promise<boolean> {
    if (state.bytes === 0) return true;
    if (size < state.bytes) return false;
    const start = Math.max(0, state.lastLineOffset - 1);
    const handle = await open(file.path, "r");
    try {
      const bytes = await readAt(handle, start, state.bytes - start);
      const line = bytes.subarray(state.lastLineOffset - start, bytes.length - 1);
      return (
        bytes.length === state.bytes - start &&
        bytes.at(-1) === 0x0a &&
        (state.lastLineOffset === 0 || bytes[0] === 0x0a) &&
        sha256Hex(line) === state.lastLineHash
      );
    } finally {
      await handle.close();
    }
  }

  async #save(index: FileIndex, complete = false): Promise<void> {
    if (index.unsaved === 0 && !complete) return;
    try {
      const text = await saveIndex(this.dir, await index.state());
      index.unsaved = 0;
      if (complete) index.releaseText(() => readTextSection(text));
    } catch (error) {
      // Only a cache: the next start rebuilds what could not be kept.
      this.#onError(error);
    }
  }

  /** Indexes of files retention removed while the app was not running, and unfinished saves. */
  async #sweep(names: ReadonlySet<string>): Promise<void> {
    const folder = path.join(this.dir, INDEX_DIR);
    let entries: string[];
    try {
      entries = await readdir(folder);
    } catch (error) {
      if (isErrno(error, "ENOENT")) return;
      throw error;
    }
    for (const entry of entries) {
      const logName = logNameOf(entry);
      if (logName !== null && names.has(logName)) continue;
      await rm(path.join(folder, entry), { force: true });
    }
  }
}
