// RE2 reads `.` and `\s` differently from JavaScript, and a schema's pattern is written for
// JavaScript (JSON Schema says ECMA-262). In RE2 `.` matches `\r`, U+2028 and U+2029, which
// JavaScript's excludes with `\n`; RE2's `\s` is ASCII whitespace only, JavaScript's also takes
// NBSP, U+FEFF and the Unicode spaces. So `^.+$` would let "a\rInjected: x" through on RE2.
// Before a pattern is compiled, each of these is spelled out as the explicit class JavaScript
// means. The rewrite is one left-to-right scan of the pattern (no regex of its own), linear in
// its length.

/** JavaScript's `\s`: WhiteSpace and LineTerminator code points (ECMA-262). */
const JS_SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

const MAX_CODE_POINT = 0x10ffff;

function escape(codePoint: number): string {
  return codePoint <= 0xffff
    ? `\\u${codePoint.toString(16).padStart(4, "0")}`
    : `\\u{${codePoint.toString(16)}}`;
}

function rangesText(ranges: readonly (readonly [number, number])[]): string {
  return ranges
    .map(([from, to]) => (from === to ? escape(from) : `${escape(from)}-${escape(to)}`))
    .join("");
}

function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const result: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) result.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

/** Class contents (no brackets) of JavaScript's `\s` and `\S`, usable inside a class too. */
const SPACE = rangesText(JS_SPACE_RANGES);
const NOT_SPACE = rangesText(complement(JS_SPACE_RANGES));
/** JavaScript's `.` without the `s` flag: anything but a line terminator. */
const DOT = "[^\\n\\r\\u2028\\u2029]";

/**
 * `pattern` with `.` (outside a class), `\s` and `\S` (anywhere) spelled out as JavaScript
 * reads them, so RE2 matches the same strings. Everything else is copied as written.
 */
export function withJsSemantics(pattern: string): string {
  let out = "";
  let inClass = false;
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i] as string;
    if (ch === "\\" && i + 1 < pattern.length) {
      const next = pattern[i + 1] as string;
      if (next === "s") out += inClass ? SPACE : `[${SPACE}]`;
      else if (next === "S") out += inClass ? NOT_SPACE : `[${NOT_SPACE}]`;
      else out += ch + next;
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
    } else if (ch === "[") {
      inClass = true;
    } else if (ch === ".") {
      out += DOT;
      i += 1;
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}
