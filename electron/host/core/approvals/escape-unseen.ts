// What a person is asked to allow must read as what runs. JSON.stringify escapes only the C0
// controls: bidi overrides and isolates, zero-width characters, tag characters and other code
// points that show nothing, or move the text around them, went into the "ask first" panel and
// the client's question as they were, so arguments could be shown in another order than they
// run ("\u202e0.0001" reads as 1000.0) or with parts that cannot be seen.

/**
 * One code point that changes what is seen without being seen itself: controls (C1 included),
 * format characters (bidi controls, zero-width joiners, BOM, tags, soft hyphen), private-use,
 * unassigned and surrogate code points, line and paragraph separators, and the rest of
 * Unicode's Default_Ignorable_Code_Point (Hangul fillers, variation selectors). Tested on a
 * single code point at a time, so the pattern cannot backtrack over the text.
 */
const UNSEEN = /^[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]$/u;

/** The UTF-16 units of a code point as JSON escapes. */
function escapeCodePoint(char: string): string {
  let out = "";
  for (let i = 0; i < char.length; i++) {
    out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return out;
}

/**
 * JSON text with every such code point written as its `\uXXXX` escape: still JSON, and the same
 * value once parsed, but nothing in it hides or reorders what is around it. Outside its strings
 * JSON is ASCII, so an escape is only ever put inside a string. Other text shown to a person
 * (the run's code) is escaped the same way, as a visible mark of what was there. Linear: one pass, each non-ASCII
 * code point tested once. An escape is at most three times the UTF-8 bytes of its code point
 * (6 characters for 2 or 3 bytes, 12 for 4).
 */
export function escapeUnseen(json: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const unit = json.charCodeAt(i);
    // ASCII stays: JSON.stringify escaped the C0 controls inside strings already, and outside
    // them a newline or a space is the pretty JSON's own layout.
    if (unit < 0x7f) continue;
    const char = String.fromCodePoint(json.codePointAt(i) ?? unit);
    if (UNSEEN.test(char)) {
      out += json.slice(from, i) + escapeCodePoint(char);
      from = i + char.length;
    }
    i += char.length - 1;
  }
  return from === 0 ? json : out + json.slice(from);
}
