import { SERVER_LIMITS } from "../../../shared/limits.js";

/**
 * Counts the bytes a server writes to one of its pipes over SERVER_LIMITS.outputBytesWindowMs;
 * `add` says when they pass SERVER_LIMITS.outputBytesPerWindowMax. Its stdout is counted
 * (server-output.ts) and so is its stderr, which the host decodes and splits into lines too: a
 * server writing stderr as fast as its pipe took it kept the host's thread ~65% busy.
 */
export class ByteWindow {
  #windowStart: number;
  #bytes = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.#windowStart = now();
  }

  /** Counts `bytes`; true once the window holds more than the limit. */
  add(bytes: number): boolean {
    const at = this.now();
    if (at - this.#windowStart >= SERVER_LIMITS.outputBytesWindowMs) {
      this.#windowStart = at;
      this.#bytes = 0;
    }
    this.#bytes += bytes;
    return this.#bytes > SERVER_LIMITS.outputBytesPerWindowMax;
  }
}
