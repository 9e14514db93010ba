// The last words of a wrapped server's child: a bounded tail of its stderr, and the error
// message that carries it.

import { StringDecoder } from "node:string_decoder";

/** Last stderr lines kept per process, for "failed with the last lines of its stderr". */
export const STDERR_TAIL_LINES = 40;

/** A longer stderr line is cut, so a server writing without newlines cannot grow the tail. */
export const STDERR_LINE_MAX_CHARS = 1_000;

/** Keeps the last lines a child wrote to stderr, bounded in count and length. */
export class StderrTail {
  private readonly lines: string[] = [];
  private partial = "";
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly maxLines: number = STDERR_TAIL_LINES,
    private readonly maxChars: number = STDERR_LINE_MAX_CHARS,
  ) {}

  write(chunk: Buffer | string): void {
    let textChunk = typeof chunk === "string" ? chunk : this.decoder.write(chunk);
    // Only the last maxLines lines are kept: a chunk holding more (a server can write 32,768
    // short lines in each 64 KiB) is cut to them first, found from its end, so it costs the
    // host a scan and not a string per line (a stderr flood kept the host's thread ~50% busy).
    let start = textChunk.length;
    for (let found = 0; found <= this.maxLines && start > 0; found++) {
      const newline = textChunk.lastIndexOf("\n", start - 1);
      if (newline === -1) break;
      if (found === this.maxLines) {
        textChunk = textChunk.slice(newline + 1);
        this.partial = "";
        this.lines.length = 0;
      }
      start = newline;
    }
    const parts = (this.partial + textChunk).split(/\r?\n/);
    // One char past the limit is kept so that cut() still sees the line was too long.
    this.partial = (parts.pop() ?? "").slice(0, this.maxChars + 1);
    for (const line of parts) {
      this.lines.push(this.cut(line));
      if (this.lines.length > this.maxLines) this.lines.shift();
    }
  }

  /** The last lines, counting a last line not yet ended by a newline. */
  snapshot(): string[] {
    const all = this.partial === "" ? this.lines : [...this.lines, this.cut(this.partial)];
    return all.slice(-this.maxLines);
  }

  private cut(line: string): string {
    return line.length > this.maxChars ? `${line.slice(0, this.maxChars)}…` : line;
  }
}

export function withStderr(message: string, tail: readonly string[]): string {
  if (tail.length === 0) return `${message} (no stderr output)`;
  return `${message}\nLast lines of stderr:\n${tail.map((l) => `  ${l}`).join("\n")}`;
}

/** Lets stderr bytes still in flight (piped through a PassThrough) arrive before we read the tail. */
export function settle(): Promise<void> {
  return new Promise((resolveSettle) => setImmediate(resolveSettle));
}
