import type { Writable } from "node:stream";
import { terminalText } from "../util/terminal-text.js";

/**
 * One line redrawn in place on a terminal; plain lines elsewhere (CI logs, pipes),
 * where carriage returns would only make noise.
 */
export class ProgressBar {
  private readonly tty: boolean;
  private lastPlain = "";

  constructor(
    private readonly out: Writable & { isTTY?: boolean; columns?: number },
    private readonly width = 30,
  ) {
    this.tty = out.isTTY === true;
  }

  update(done: number, total: number, label: string): void {
    const fraction = total > 0 ? Math.min(1, done / total) : 0;
    const filled = Math.round(fraction * this.width);
    const bar = "#".repeat(filled) + "-".repeat(this.width - filled);
    // The label is a build step's text: escaped, so the only CR is the one that redraws.
    const text = `[${bar}] ${Math.round(fraction * 100)}% ${terminalText(label)}`;
    if (this.tty) {
      const columns = this.out.columns ?? 100;
      this.out.write(`\r${text.slice(0, columns - 1).padEnd(columns - 1)}`);
    } else if (text !== this.lastPlain) {
      this.out.write(text + "\n");
      this.lastPlain = text;
    }
  }

  done(): void {
    if (this.tty) this.out.write("\n");
  }
}
