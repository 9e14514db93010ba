// Text that reaches a person's terminal from a run, a client or a server (a tool name, a
// client's self-chosen name, a refusal reason, a build log) must not act on the terminal or
// pose as something the host wrote. A terminal acts on C0 controls (ESC starts sequences such
// as OSC 52, which writes the clipboard; CR and LF start what looks like a new entry), on DEL,
// on C1 controls (U+009B is a one-character CSI in some terminals), and reorders text around
// bidi controls (a right-to-left override can make "deny" read as "ynde" or hide a suffix).
// Each such character is shown as a `\uXXXX` escape instead: visible, and still valid inside a
// JSON string, so the same escaper serves plain lines and JSON output.

import { isHiddenChar } from "../../../shared/hidden-chars.js";

/** Bidi controls: ALM, LRM, RLM, LRE/RLE/PDF/LRO/RLO, LRI/RLI/FSI/PDI. */
function isBidiControl(code: number): boolean {
  return (
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** C0, DEL, C1, the Unicode line and paragraph separators, and the bidi controls. */
export function isUnsafeForTerminal(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x2028 ||
    code === 0x2029 ||
    isBidiControl(code)
  );
}

function escapeUnit(code: number): string {
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

export interface TerminalTextOptions {
  /** Keep "\n" as a line break (for the host's own multi-line messages); CR is escaped anyway. */
  multiline?: boolean;
}

/**
 * `text` with every character a terminal would act on, and every character a person could not
 * see there (zero-width, tag characters: see hidden-chars.ts), replaced by visible `\uXXXX`
 * escapes (a character beyond U+FFFF as its two UTF-16 units, as JSON writes it). One pass over
 * the text: linear in its length.
 */
export function terminalText(text: string, options: TerminalTextOptions = {}): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a && options.multiline === true) continue;
    const point = text.codePointAt(i) as number;
    const width = point > 0xffff ? 2 : 1;
    if (isUnsafeForTerminal(code) || isHiddenChar(point)) {
      out += text.slice(from, i) + escapeUnit(code);
      if (width === 2) out += escapeUnit(text.charCodeAt(i + 1));
      from = i + width;
    }
    i += width - 1;
  }
  return from === 0 ? text : out + text.slice(from);
}
