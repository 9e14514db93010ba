import { SERVER_LIMITS } from "../../../shared/limits.js";

/**
 * A bucket of SERVER_LIMITS.messagesBurstMax refilled at messagesPerSecondMax, as the message
 * meter's: `take` says whether one more fits. For what a server sends that costs the host about
 * as much as a message and is no message (a piece of its stderr).
 */
export class RateBucket {
  #tokens: number = SERVER_LIMITS.messagesBurstMax;
  #last: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.#last = now();
  }

  take(): boolean {
    const at = this.now();
    this.#tokens = Math.min(
      SERVER_LIMITS.messagesBurstMax,
      this.#tokens + ((at - this.#last) * SERVER_LIMITS.messagesPerSecondMax) / 1000,
    );
    this.#last = at;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
