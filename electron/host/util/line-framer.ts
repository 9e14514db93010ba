/**
 * Cuts a byte stream into lines without trusting the writer, for every stream the host reads
 * line by line (the runner's pipe, MCP over the socket, the shim's two directions, the
 * handshake, a wrapped server's stdout). Each byte is looked at once: a newline is searched for
 * only in the bytes that came since the last one. A line is decoded only once it is whole, so
 * a UTF-8 character split across chunks decodes as one. No line longer than `maxLineBytes`
 * (its newline not counted) is ever kept: past the cap, what happens is the caller's policy.
 * - "stop": the line is reported (`onOverLong`, with the bytes seen so far, as soon as they pass
 *   the cap) and framing stops: no line after it is given.
 * - "skip": the line is dropped up to its newline, unbuffered, and framing goes on.
 * Lines are given one at a time as they are found; `stop()` called from `onLine` ends the chunk
 * there, so a caller that gives up mid-chunk pays nothing for the lines after.
 */
export type OverLongPolicy = "stop" | "skip";

export interface LineFramerOptions {
  maxLineBytes: number;
  overLong: OverLongPolicy;
  /** A whole line, without its newline; the buffer may be a view of the caller's chunk. */
  onLine: (line: Buffer) => void;
  /** A line passed the cap (with "skip" too, once per line skipped). */
  onOverLong?: (bytes: number) => void;
}

export class LineFramer {
  readonly #options: LineFramerOptions;
  #parts: Buffer[] = [];
  #pending = 0;
  #skipping = false;
  #stopped = false;

  constructor(options: LineFramerOptions) {
    this.#options = options;
  }

  /**
   * Frames a chunk. Returns how many of its bytes were taken: all of them, unless framing
   * stopped inside it (the rest, after the last line given, was not looked at).
   */
  push(chunk: Buffer): number {
    if (this.#stopped) return 0;
    const { maxLineBytes, onLine } = this.#options;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (this.#skipping) {
        if (newline === -1) return chunk.length;
        this.#skipping = false;
        start = newline + 1;
        continue;
      }
      if (this.#pending + piece.length > maxLineBytes) {
        this.#overLong(this.#pending + piece.length);
        if (this.#stopped) return start;
        if (newline === -1) return chunk.length;
        this.#skipping = false;
        start = newline + 1;
        continue;
      }
      if (newline === -1) {
        // Copied: the caller may reuse its buffer.
        if (piece.length > 0) this.#parts.push(Buffer.from(piece));
        this.#pending += piece.length;
        return chunk.length;
      }
      const line = this.#parts.length === 0 ? piece : Buffer.concat([...this.#parts, piece]);
      this.#parts = [];
      this.#pending = 0;
      start = newline + 1;
      onLine(line);
      if (this.#stopped) return start;
    }
    return chunk.length;
  }

  #overLong(bytes: number): void {
    this.#parts = [];
    this.#pending = 0;
    if (this.#options.overLong === "stop") this.#stopped = true;
    else this.#skipping = true;
    this.#options.onOverLong?.(bytes);
  }

  /** Gives no more lines, and drops what it holds. */
  stop(): void {
    this.#stopped = true;
    this.#parts = [];
    this.#pending = 0;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Bytes of the unfinished line kept (a torn line at the end of a stream). */
  get pending(): number {
    return this.#pending;
  }

  /** Whether bytes of a line came and its newline has not yet (it may be one being skipped). */
  midLine(): boolean {
    return this.#pending > 0 || this.#skipping;
  }

  /** The unfinished line's bytes; null while one over the cap is being skipped. */
  partial(): Buffer | null {
    return this.#skipping ? null : Buffer.concat(this.#parts, this.#pending);
  }

  /** Forgets the unfinished line (the stream it came from is gone); framing goes on. */
  reset(): void {
    this.#parts = [];
    this.#pending = 0;
    this.#skipping = false;
  }
}
