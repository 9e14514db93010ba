/**
 * Splits a byte stream into lines without trusting the writer. Bytes are kept until
 * a newline arrives, so a multi-byte UTF-8 character split across chunks decodes
 * whole; a line longer than the cap is reported as soon as the cap is passed, so a
 * writer that never sends a newline cannot make the host buffer without bound.
 */
export type LineEvent = { kind: "line"; text: string } | { kind: "overflow"; bytes: number };

export class LineSplitter {
  private parts: Buffer[] = [];
  private pending = 0;
  private overflowed = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    if (this.overflowed) return events;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (this.pending + piece.length > this.maxLineBytes) {
        return this.overflow(events, this.pending + piece.length);
      }
      this.parts.push(piece);
      events.push({ kind: "line", text: Buffer.concat(this.parts).toString("utf8") });
      this.parts = [];
      this.pending = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (this.pending + rest.length > this.maxLineBytes) {
      return this.overflow(events, this.pending + rest.length);
    }
    if (rest.length > 0) {
      // Copy: the caller may reuse its buffer.
      this.parts.push(Buffer.from(rest));
      this.pending += rest.length;
    }
    return events;
  }

  /** Bytes of an unfinished last line, if any (a torn line at the end of a stream). */
  get remainder(): number {
    return this.pending;
  }

  private overflow(events: LineEvent[], bytes: number): LineEvent[] {
    this.overflowed = true;
    this.parts = [];
    this.pending = 0;
    events.push({ kind: "overflow", bytes });
    return events;
  }
}
