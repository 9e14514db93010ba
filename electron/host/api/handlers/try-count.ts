import { ApiFailure } from "../../../../shared/api/api-failure.js";

/** Tries running at once in one host; each is a child process. */
export const TRY_CONCURRENT_MAX = 2;

/**
 * Tries of servers running at once in one host, counted together for servers.try and
 * servers.tryBundle: each starts a child process, and the cap is on those processes. At the
 * app's stop, close() ends the tries still running, so no tried server outlives the app.
 */
export class TryCount {
  private readonly running = new Set<Promise<unknown>>();
  private readonly stopping = new AbortController();

  async run<T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.stopping.signal.aborted) {
      throw new ApiFailure("unavailable", "Code Mode is stopping: it tries no more servers");
    }
    if (this.running.size >= TRY_CONCURRENT_MAX) {
      throw new ApiFailure(
        "unavailable",
        `${this.running.size} tries are already running; wait for one to finish and try again`,
      );
    }
    const attempt = start(this.stopping.signal);
    this.running.add(attempt);
    try {
      return await attempt;
    } finally {
      this.running.delete(attempt);
    }
  }

  /** Ends the tries running (each stops its server, its whole process tree) and waits for them. */
  async close(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }
}
