/**
 * Keeps the first `keptBytes` of a stream of text and counts the rest: the model's
 * context gets a bounded head, and the host still knows how much was written.
 */
export class OutputCapture {
  private kept = "";
  private keptBytes = 0;
  total = 0;
  truncated = false;

  constructor(private readonly limitBytes: number) {}

  append(text: string): void {
    const bytes = Buffer.byteLength(text, "utf8");
    this.total += bytes;
    if (this.truncated) return;
    if (this.keptBytes + bytes <= this.limitBytes) {
      this.kept += text;
      this.keptBytes += bytes;
      return;
    }
    this.kept += cutToBytes(text, this.limitBytes - this.keptBytes);
    this.keptBytes = this.limitBytes;
    this.truncated = true;
  }

  get text(): string {
    return this.kept;
  }
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

/**
 * The last `maxLines` lines of a traceback, at most `maxChars` characters. The text comes from
 * the sandbox, so every step here is linear: `trimEnd()` instead of a `/\s+$/` regex, which
 * backtracks quadratically over a long run of spaces not at the end (130,000 spaces and one
 * character cost about 20 s of the host's only thread).
 */
export function tracebackTail(text: string, maxLines: number, maxChars: number): string {
  const lines = text.trimEnd().split("\n");
  let tail = lines.slice(-maxLines).join("\n");
  if (tail.length > maxChars) tail = "…" + tail.slice(tail.length - maxChars + 1);
  return tail;
}
