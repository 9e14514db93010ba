// The restart policy of a crashed server: exponential backoff on an injectable clock.

/** First automatic restart waits this long after a crash... */
export const RESTART_BACKOFF_INITIAL_MS = 500;

/** ...doubling after every failed attempt, up to this. */
export const RESTART_BACKOFF_MAX_MS = 30_000;

/** A server that stayed up this long since its last start gets the short delay again. */
export const RESTART_BACKOFF_RESET_AFTER_MS = 60_000;

/** Time, injectable so backoff can be observed without waiting on it. */
export interface Clock {
  now(): number;
  /** Runs fn after ms; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  resetAfterMs: number;
}

/** The backoff of the options, each value not given taken from the constants above. */
export function backoffWithDefaults(options: Partial<BackoffOptions> = {}): BackoffOptions {
  return {
    initialMs: options.initialMs ?? RESTART_BACKOFF_INITIAL_MS,
    maxMs: options.maxMs ?? RESTART_BACKOFF_MAX_MS,
    resetAfterMs: options.resetAfterMs ?? RESTART_BACKOFF_RESET_AFTER_MS,
  };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    // A pending restart must not keep a host that is otherwise done (tests, `serve` exit) alive.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Delay before automatic restart attempt number `failures` (0-based). */
export function restartDelayMs(failures: number, backoff: BackoffOptions): number {
  // Capping the exponent keeps the product finite however long a server keeps failing.
  const factor = 2 ** Math.min(failures, 30);
  return Math.min(backoff.initialMs * factor, backoff.maxMs);
}

/**
 * The backoff state of one server: consecutive failures (the exponent), when it last became
 * ready (an uptime long enough starts the backoff over), and the pending restart timer.
 */
export class RestartPolicy {
  /** Consecutive automatic-restart failures: the backoff exponent. */
  private failures = 0;
  private readyAt: number | null = null;
  private cancelTimer: (() => void) | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly backoff: BackoffOptions,
  ) {}

  /** Forgets past failures (a restart asked for by the user). */
  reset(): void {
    this.failures = 0;
  }

  markReady(): void {
    this.readyAt = this.clock.now();
  }

  /** The process went away; one that had stayed up long enough starts the backoff over. */
  markExited(): void {
    const uptime = this.readyAt === null ? 0 : this.clock.now() - this.readyAt;
    this.readyAt = null;
    if (uptime >= this.backoff.resetAfterMs) this.failures = 0;
  }

  /**
   * Counts one more failure and gives the delay before the next attempt (at least `minMs`) and
   * its clock time.
   */
  nextDelay(minMs = 0): { delayMs: number; at: number } {
    const delayMs = Math.max(minMs, restartDelayMs(this.failures, this.backoff));
    this.failures++;
    return { delayMs, at: this.clock.now() + delayMs };
  }

  /** Runs fn after delayMs, unless cancel() comes first. */
  arm(delayMs: number, fn: () => void): void {
    this.cancelTimer = this.clock.setTimer(() => {
      this.cancelTimer = null;
      fn();
    }, delayMs);
  }

  cancel(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
  }
}
