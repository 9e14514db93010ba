// When the audit log's next durable write may start, and which entries it takes. Each durable
// write is a trip through libuv's thread pool and a sync of the disk, which cost a tool call
// more CPU than the rest of its entry's work (bench/bridge-overhead.ts): while entries keep
// coming, the writes are paced so that a run's calls share syncs instead of paying one each.
import { MiB } from "../util/units.js";

/**
 * While entries keep coming, a durable write starts at most this often: the entries of the
 * moment between go out together in the next one. A first entry after a quiet spell is written
 * at once, and a caller that waits for durability (flush: a run's answer waits for its entries)
 * has the write start at once too. So an entry is on disk at most this long after the write
 * before it started, plus its own write's time.
 */
export const AUDIT_SYNC_MIN_INTERVAL_MS = 5;

/**
 * The longest a lazy entry (AuditLog.append) waits for another write to carry it: a run's
 * start, which a run shorter than this has written together with its end, in the one durable
 * write its answer waits for. Only how soon a run still in progress is on disk depends on it.
 */
export const AUDIT_LAZY_HOLD_MS = 50;

/** Entries queued while a sync is in flight are written together, up to this many bytes. */
export const AUDIT_BATCH_MAX_BYTES = 1 * MiB;

/** Takes the next write's entries off the front of `queue`: in order, up to the bytes cap. */
export function takeBatch<T extends { bodyJson: string }>(queue: T[]): T[] {
  let bytes = 0;
  let take = 0;
  for (const pending of queue) {
    bytes += pending.bodyJson.length + 128;
    take += 1;
    if (bytes >= AUDIT_BATCH_MAX_BYTES) break;
  }
  return queue.splice(0, take);
}

export class AuditWritePace {
  /** When the last write started (performance.now()). */
  #lastWriteAt = -Infinity;
  /** Set by hurry(): writes start at once until settled() says the queue is empty. */
  #hurried = false;
  /** Ends the wait for the interval at once. */
  #endWait: (() => void) | null = null;

  /** `intervalMs` 0: every write starts at the next turn of the event loop. */
  constructor(private readonly intervalMs: number) {}

  /**
   * Resolves when the next write may start: at the next turn of the event loop (entries
   * appended in this one share the write) once the interval since the last write has passed,
   * or hurry() asked for it; else when the interval passes.
   */
  due(): Promise<void> {
    const wait = this.#lastWriteAt + this.intervalMs - performance.now();
    if (wait <= 0 || this.#hurried) return new Promise((resolve) => setImmediate(resolve));
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#endWait?.(), wait);
      this.#endWait = () => {
        this.#endWait = null;
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** A write starts now. */
  started(): void {
    this.#lastWriteAt = performance.now();
  }

  /** Someone waits for what is queued (or the log closes): no more waiting for the interval. */
  hurry(): void {
    this.#hurried = true;
    this.#endWait?.();
  }

  /** The queue is empty: the next entries are paced again. */
  settled(): void {
    this.#hurried = false;
  }
}
