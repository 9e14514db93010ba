/**
 * The runner's first line (runner.py's READY_LINE): written once its preload imports are done
 * (at once without preloading) and before it reads its start line, so before any code runs.
 * The warm pool counts a container ready only after it; the host expects it exactly, as the
 * first bytes of the container's output, and nowhere else (a later one is an unknown message).
 */
export const READY_LINE = '{"type":"ready"}\n';
const READY_BYTES = Buffer.from(READY_LINE, "ascii");

export type ReadyState = "waiting" | "ready" | "mismatch";

/**
 * Compares the first bytes of a container's output with READY_LINE, one byte at a time: its
 * cost is at most READY_LINE's length whatever arrives, and nothing is buffered (a byte that
 * matched is READY_LINE's own, so it can be given back from there).
 */
export class ReadyLineMatcher {
  private matched = 0;
  state: ReadyState = "waiting";

  /**
   * Feeds the next chunk; returns the bytes that belong to the run: those after the ready
   * line, or, on a mismatch, everything from the first byte on (what matched included), so
   * whoever reads the run sees the stream exactly as the container wrote it.
   */
  push(chunk: Buffer): Buffer {
    if (this.state !== "waiting") return chunk;
    const before = this.matched;
    let at = 0;
    while (at < chunk.length && this.matched < READY_BYTES.length) {
      if (chunk[at] !== READY_BYTES[this.matched]) {
        this.state = "mismatch";
        return Buffer.concat([READY_BYTES.subarray(0, before), chunk]);
      }
      at++;
      this.matched++;
    }
    if (this.matched < READY_BYTES.length) return chunk.subarray(chunk.length);
    this.state = "ready";
    return chunk.subarray(at);
  }
}
