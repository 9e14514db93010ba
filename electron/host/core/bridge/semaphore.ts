/** Gives a slot back; calling it more than once is harmless. */
export type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  onAbort: () => void;
}

/**
 * A counting semaphore whose waiters can be cancelled. The bridge keeps one per server so a
 * burst of calls from the code cannot open more requests to a server than the cap, while a
 * stopped run still gets its queued calls back at once instead of after the queue drains.
 */
export class Semaphore {
  #limit: number;
  #inUse = 0;
  readonly #waiters: Waiter[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
    }
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /**
   * Changes how many slots there are. More slots go to waiters at once; with fewer, slots in
   * use stay with their holders and are not handed on until the count is under the new limit.
   */
  setLimit(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
    }
    this.#limit = limit;
    while (this.#inUse < this.#limit && this.#waiters.length > 0) {
      this.#inUse++;
      this.#grantNext();
    }
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(abortError(signal));
    if (this.#inUse < this.#limit) {
      this.#inUse++;
      return Promise.resolve(this.#makeRelease());
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.#waiters.indexOf(waiter);
          if (i !== -1) this.#waiters.splice(i, 1);
          reject(abortError(signal));
        },
      };
      signal.addEventListener("abort", waiter.onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #makeRelease(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#handOver();
    };
  }

  /**
   * Passes the freed slot straight to the next waiter, so a newcomer cannot jump the queue;
   * a slot over a lowered limit is dropped instead.
   */
  #handOver(): void {
    if (this.#waiters.length === 0 || this.#inUse > this.#limit) {
      this.#inUse--;
      return;
    }
    this.#grantNext();
  }

  /** Gives a slot already counted in #inUse to the first waiter (there is one). */
  #grantNext(): void {
    const next = this.#waiters.shift();
    if (next === undefined) return;
    next.signal.removeEventListener("abort", next.onAbort);
    next.grant(this.#makeRelease());
  }
}

/** The signal's reason when it is an Error (it normally is), else a plain AbortError. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("Aborted", "AbortError");
}
