/**
 * A server's messages (notifications, answers, anything) are metered as a bucket: it may send
 * MESSAGES_BURST_MAX at once, and MESSAGES_PER_SECOND_MAX a second for as long as it likes. One
 * past that is stopped as broken, and restarted after its backoff: each message costs the host
 * a parse (~12 µs), and a server writing notifications as fast as its pipe took them kept the
 * host's thread ~100% busy. The burst lets an honest server log a few thousand lines as it
 * starts (counted per second alone, one was stopped at every start); a bigger one would let
 * each flood, between restarts, cost the host that many parses more. Far above what a real
 * server sends.
 */
export const MESSAGES_BURST_MAX = 5_000;

/** ...and the rate the bucket refills at. */
export const MESSAGES_PER_SECOND_MAX = 2_000;

/**
 * A bucket of MESSAGES_BURST_MAX refilled at MESSAGES_PER_SECOND_MAX, as the message
 * meter's: `take` says whether one more fits. For what a server sends that costs the host about
 * as much as a message and is no message (a piece of its stderr).
 */
export class RateBucket {
  #tokens: number = MESSAGES_BURST_MAX;
  #last: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.#last = now();
  }

  take(): boolean {
    const at = this.now();
    this.#tokens = Math.min(
      MESSAGES_BURST_MAX,
      this.#tokens + ((at - this.#last) * MESSAGES_PER_SECOND_MAX) / 1000,
    );
    this.#last = at;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
