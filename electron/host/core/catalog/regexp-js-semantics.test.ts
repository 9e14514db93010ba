import { describe, expect, it } from "vitest";
import { withJsSemantics } from "./regexp-js-semantics.js";
import { compileLinear } from "./schema-regexp.js";

/** Strings where RE2's `.` and `\s` differ from JavaScript's, and some where they agree. */
const TEXTS = [
  "abc",
  "a\rInjected: x",
  "a\nb",
  "a\u2028b",
  "a\u2029b",
  "\u00a0",
  "\ufeff",
  "\u3000",
  "\u2003",
  "\u1680",
  "\u202f",
  " ",
  "\t",
  "\v",
  "x",
  "😀",
  "a b",
  "a\u00a0b",
  "",
];

const PATTERNS = [
  "^.+$",
  "^.$",
  "^a.b$",
  "^\\s$",
  "^\\S$",
  "^\\S+$",
  "^[\\s]$",
  "^[\\S]$",
  "^[^\\s]$",
  "^[^\\S]$",
  "^[\\sx]+$",
  "^[a\\S]$",
  "^\\w+\\s\\w+$",
  "^[.]$",
  "^\\.$",
  "^[\\].]$",
  "^[\\\\.]+$",
  "^\\\\.$",
];

describe("schema patterns read `.` and `\\s` as JavaScript does", () => {
  it("accept exactly the strings JavaScript's RegExp accepts", () => {
    for (const pattern of PATTERNS) {
      const js = new RegExp(pattern, "u");
      const linear = compileLinear(pattern);
      for (const text of TEXTS) {
        expect({ pattern, text, accepted: linear.test(text) }).toEqual({
          pattern,
          text,
          accepted: js.test(text),
        });
      }
    }
  });

  it("`^.+$` refuses a carriage return that would start an injected header", () => {
    expect(compileLinear("^.+$").test("a\rInjected: x")).toBe(false);
    expect(compileLinear("^.+$").test("a\u2028Injected: x")).toBe(false);
  });

  it("rewrites only `.` outside a class and `\\s`, `\\S`; escapes and classes are kept", () => {
    expect(withJsSemantics("^a\\.b[.]$")).toBe("^a\\.b[.]$");
    expect(withJsSemantics("^.$")).toBe("^[^\\n\\r\\u2028\\u2029]$");
    expect(withJsSemantics("\\\\s")).toBe("\\\\s");
    expect(withJsSemantics("[\\s]")).toContain("\\ufeff");
    expect(withJsSemantics("\\S").startsWith("[\\u0000-\\u0008")).toBe(true);
    expect(withJsSemantics("\\S").endsWith("-\\u{10ffff}]")).toBe(true);
  });

  it("the catastrophic patterns stay linear: a long failing input is answered", () => {
    for (const pattern of ["^(\\w+\\s?)*$", "^(.+\\s?)*$", "^(\\S+\\s?)*$"]) {
      const evil = compileLinear(pattern);
      expect(evil.test(`${"a".repeat(50_000)}\r\u2028!`)).toBe(false);
      expect(evil.test("two words")).toBe(true);
    }
  });
});
