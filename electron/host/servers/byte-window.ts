import { MiB } from "../util/units.js";

/**
 * A server that writes more than this to its stdout within OUTPUT_BYTES_WINDOW_MS is stopped the
 * same way: a server writing 9 MB lines without end kept the host's thread ~90% busy under
 * any message count. Room for a listing of 10,000 tools with large schemas.
 */
export const OUTPUT_BYTES_PER_WINDOW_MAX = 64 * MiB;

/** The window OUTPUT_BYTES_PER_WINDOW_MAX counts over. */
export const OUTPUT_BYTES_WINDOW_MS = 10_000;

/**
 * Counts the bytes a server writes to one of its pipes over OUTPUT_BYTES_WINDOW_MS;
 * `add` says when they pass OUTPUT_BYTES_PER_WINDOW_MAX. Its stdout is counted
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
    if (at - this.#windowStart >= OUTPUT_BYTES_WINDOW_MS) {
      this.#windowStart = at;
      this.#bytes = 0;
    }
    this.#bytes += bytes;
    return this.#bytes > OUTPUT_BYTES_PER_WINDOW_MAX;
  }
}
