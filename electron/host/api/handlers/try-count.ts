import { TRY_SERVER_LIMITS } from "../../../../shared/limits.js";
import { ApiFailure } from "../api-failure.js";

/**
 * Tries of servers running at once in one host, counted together for servers.try and
 * servers.tryBundle: each starts a child process, and the cap is on those processes.
 */
export class TryCount {
  private running = 0;

  async run<T>(start: () => Promise<T>): Promise<T> {
    if (this.running >= TRY_SERVER_LIMITS.concurrentMax) {
      throw new ApiFailure(
        "unavailable",
        `${this.running} tries are already running; wait for one to finish and try again`,
      );
    }
    this.running++;
    try {
      return await start();
    } finally {
      this.running--;
    }
  }
}
