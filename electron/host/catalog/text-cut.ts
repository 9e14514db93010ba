// Text from wrapped servers is cut before it reaches the model. Cuts are by UTF-8 bytes where
// the limit is in bytes, and never fall inside a character, so what is shown is always a
// prefix of what the server sent plus a visible mark.

export const CUT_MARK = "…";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Lone surrogates cannot be encoded as UTF-8 (nor appear in Python source): use U+FFFD. */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD");
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  // Lone surrogates count as the U+FFFD that replaces them: three bytes.
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes, mark included, ending in `…` when anything
 * was dropped. The walk stops at the limit, so a huge text costs no more than a short one.
 */
export function cutUtf8(text: string, maxBytes: number): string {
  // No UTF-16 unit takes more than 3 bytes (a pair takes 4 for 2 units): a text this short
  // fits whole, and the walk below is skipped (every audit entry's texts go through here).
  if (text.length * 3 <= maxBytes) return toWellFormed(text);
  const markBytes = utf8Length(CUT_MARK.codePointAt(0) ?? 0);
  let bytes = 0;
  let fitsWithMark = 0;
  let index = 0;
  for (const ch of text) {
    bytes += utf8Length(ch.codePointAt(0) ?? 0);
    if (bytes > maxBytes) {
      return toWellFormed(text.slice(0, fitsWithMark)) + (maxBytes >= markBytes ? CUT_MARK : "");
    }
    index += ch.length;
    if (bytes <= maxBytes - markBytes) fitsWithMark = index;
  }
  return toWellFormed(text);
}

// C0 and C1 controls and the Unicode line and paragraph separators: anything that could
// start a new line, or hide text, where one line is expected.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g;

/** All whitespace and control characters collapsed to single spaces, trimmed. */
export function oneLine(text: string): string {
  return toWellFormed(text).replace(LINE_BREAKING, " ").trim();
}

/**
 * The first sentence of `text` on one line, at most `maxChars` code points. A sentence ends at
 * `.`, `!` or `?` followed by a space, or at a blank line.
 */
export function firstSentence(text: string, maxChars: number): string {
  const paragraph = text.split(/\r?\n\s*\r?\n|\r\s*\r/, 1)[0] ?? "";
  const line = oneLine(paragraph);
  const end = /[.!?](?=\s|$)/.exec(line);
  return cutCodePoints(end === null ? line : line.slice(0, end.index + 1), maxChars);
}

/** Cuts to at most `max` code points, the last being `…` when anything was dropped. */
export function cutCodePoints(text: string, max: number): string {
  // A code point is at most two code units, so this slice keeps every candidate and stops a
  // megabyte-long text from being split into an array.
  const head = text.length > max * 2 + 2 ? text.slice(0, max * 2 + 2) : text;
  const points = Array.from(head);
  if (points.length <= max && head.length === text.length) return text;
  return points.slice(0, Math.max(0, max - 1)).join("") + CUT_MARK;
}
