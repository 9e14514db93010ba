// Characters a person cannot see, or that change how the text around them reads: controls,
// format characters (zero-width joiners and spaces, bidi overrides and isolates, the tag
// characters U+E0000-E007F), other default-ignorable ones (variation selectors, Hangul
// fillers), separators and spaces other than U+0020, surrogates, private-use and unassigned
// code points. A server can put them in a tool's name so that "send" plus 520 tag characters
// reads as "send", or "report\u202Etxt.exe" reads as "reportexe.txt". Shared by the host (which
// refuses such tool names) and the UI (which shows such text escaped), so no Node imports here.

/** One character class, no quantifier: a test is linear in nothing but the one code point. */
const HIDDEN = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;

/** Whether the code point is one a person cannot see or that reorders the text around it. */
export function isHiddenChar(codePoint: number): boolean {
  // Printable ASCII (the space included) is the common case: no regular expression for it.
  if (codePoint >= 0x20 && codePoint < 0x7f) return false;
  return HIDDEN.test(String.fromCodePoint(codePoint));
}

/** The first hidden code point of `text`, or null. Linear; stops at the first one. */
export function firstHiddenChar(text: string): number | null {
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (isHiddenChar(code)) return code;
  }
  return null;
}

/** A code point as people look it up: U+E0041. */
export function codePointLabel(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, "0")}`;
}

export interface VisibleTextOptions {
  /** Keep "\n" as a line break (a description, pretty JSON); a name never keeps one. */
  multiline?: boolean;
  /**
   * Cut to at most this many characters, "…" included, never inside an escape: a hidden
   * character shows as up to ten, so a name is cut after escaping, not before.
   */
  maxChars?: number;
}

function escapeCodePoint(code: number): string {
  return `\\u{${code.toString(16).toUpperCase()}}`;
}

/**
 * `text` as a person may read it: each hidden code point shown as `\u{XXXX}` (U+E0041 becomes
 * `\u{E0041}`), everything else as it is. Where a name is shown, this is what is shown.
 */
export function visibleText(text: string, options: VisibleTextOptions = {}): string {
  const keep = (code: number) =>
    !isHiddenChar(code) || (code === 0x0a && options.multiline === true);
  const max = options.maxChars;
  if (max !== undefined) {
    let out = "";
    // The longest cut so far (between two pieces) that leaves room for the "…".
    let cutAt = 0;
    for (const ch of text) {
      const code = ch.codePointAt(0) as number;
      const piece = keep(code) ? ch : escapeCodePoint(code);
      if (out.length + piece.length > max) return `${out.slice(0, cutAt)}…`;
      out += piece;
      if (out.length < max) cutAt = out.length;
    }
    return out;
  }
  let out = "";
  let plain = 0;
  let i = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (!keep(code)) {
      out += text.slice(plain, i) + escapeCodePoint(code);
      plain = i + ch.length;
    }
    i += ch.length;
  }
  return plain === 0 ? text : out + text.slice(plain);
}
