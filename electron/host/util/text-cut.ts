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
  // One that may fit is measured natively rather than walked below, one character at a time
  // (a call's logged arguments, up to their cap, come here with each of its entries); past
  // `maxBytes` units it cannot fit, and stays unmeasured. Node counts a lone surrogate as the
  // three bytes of U+FFFD, as the walk does.
  if (text.length <= maxBytes && Buffer.byteLength(text, "utf8") <= maxBytes) {
    return toWellFormed(text);
  }
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

/** The text left where cutMiddleUtf8 took the middle of a text out. */
export function middleCutMark(bytesLeftOut: number): string {
  return `\n[… ${bytesLeftOut} bytes left out …]\n`;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes by taking out its middle: its start and its end
 * are kept (half of the room each), with middleCutMark saying how much went. For text someone
 * may pad to hide what matters: cut at the end, padding first pushed the rest out; cut at the
 * start, the rest first and padding after. Either is now shown, and the mark says a cut was
 * made. The walks stop at the limits, so a huge text costs no more than a short one.
 */
export function cutMiddleUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return toWellFormed(text);
  const total = Buffer.byteLength(text);
  if (total <= maxBytes) return toWellFormed(text);
  // The mark with the longest count it can have: the actual one is no longer.
  const room = maxBytes - Buffer.byteLength(middleCutMark(total));
  if (room < 2) return cutUtf8(text, maxBytes);
  const head = utf8Prefix(text, Math.ceil(room / 2));
  const tail = utf8Suffix(text, Math.floor(room / 2));
  const leftOut = total - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return toWellFormed(head) + middleCutMark(leftOut) + toWellFormed(tail);
}

/** The longest start of `text` of at most `maxBytes` UTF-8 bytes. */
function utf8Prefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = 0;
  for (const ch of text) {
    bytes += utf8Length(ch.codePointAt(0) ?? 0);
    if (bytes > maxBytes) break;
    index += ch.length;
  }
  return text.slice(0, index);
}

/** The longest end of `text` of at most `maxBytes` UTF-8 bytes, never half a surrogate pair. */
function utf8Suffix(text: string, maxBytes: number): string {
  let bytes = 0;
  let index = text.length;
  while (index > 0) {
    let start = index - 1;
    const unit = text.charCodeAt(start);
    if (unit >= 0xdc00 && unit <= 0xdfff && start > 0) {
      const before = text.charCodeAt(start - 1);
      if (before >= 0xd800 && before <= 0xdbff) start -= 1;
    }
    const size = utf8Length(text.codePointAt(start) ?? 0);
    if (bytes + size > maxBytes) break;
    bytes += size;
    index = start;
  }
  return text.slice(index);
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
