import { describe, expect, it } from "vitest";
import {
  CUT_MARK,
  cutCodePoints,
  cutMiddleUtf8,
  cutUtf8,
  middleCutMark,
  firstSentence,
  oneLine,
  toWellFormed,
} from "./text-cut.js";

const bytes = (text: string): number => Buffer.byteLength(text, "utf8");

describe("cutting text", () => {
  it("leaves text within the byte limit as it is", () => {
    expect(cutUtf8("Add two integers.", 2048)).toBe("Add two integers.");
    const exact = "é".repeat(1024);
    expect(cutUtf8(exact, 2048)).toBe(exact);
  });

  it("cuts by UTF-8 bytes, mark included, never inside a character", () => {
    for (const unit of ["a", "é", "€", "😀"]) {
      const text = unit.repeat(5000);
      const cut = cutUtf8(text, 2048);
      expect(bytes(cut)).toBeLessThanOrEqual(2048);
      expect(bytes(cut)).toBeGreaterThan(2048 - 3 - 4);
      expect(cut.endsWith(CUT_MARK)).toBe(true);
      expect(text.startsWith(cut.slice(0, -CUT_MARK.length))).toBe(true);
      expect(cut).toBe(toWellFormed(cut));
    }
  });

  it("keeps a text that fits by a hair whole, lone surrogates counted as U+FFFD", () => {
    // Longer than a third of the limit in units: measured, not taken as fitting at once.
    const lone = "\ud800";
    for (const text of [
      "é".repeat(1024),
      `${"a".repeat(2045)}${lone}`,
      `${"€".repeat(681)}${lone}`,
      `${"😀".repeat(511)}abcd`,
    ]) {
      expect(bytes(toWellFormed(text))).toBeLessThanOrEqual(2048);
      expect(cutUtf8(text, 2048)).toBe(toWellFormed(text));
    }
    // One byte more, and it is cut, mark included.
    const over = `${"a".repeat(2046)}${lone}`;
    expect(bytes(toWellFormed(over))).toBe(2049);
    expect(cutUtf8(over, 2048)).toBe(`${"a".repeat(2045)}${CUT_MARK}`);
  });

  it("costs the same for a huge text as for a short one", () => {
    const huge = "x".repeat(20_000_000);
    const started = performance.now();
    expect(bytes(cutUtf8(huge, 2048))).toBe(2048);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("replaces lone surrogates, which UTF-8 cannot carry", () => {
    expect(toWellFormed("a\uD800b\uDC00c😀")).toBe("a\uFFFDb\uFFFDc😀");
    expect(cutUtf8("\uD800", 10)).toBe("\uFFFD");
  });

  it("cuts by code points without splitting a pair", () => {
    expect(cutCodePoints("abc", 3)).toBe("abc");
    expect(cutCodePoints("abcd", 3)).toBe(`ab${CUT_MARK}`);
    expect(cutCodePoints("😀😀😀😀", 3)).toBe(`😀😀${CUT_MARK}`);
  });

  it("takes the first sentence on one line, bounded", () => {
    expect(firstSentence("Add two integers. Returns the sum.", 160)).toBe("Add two integers.");
    expect(firstSentence("Search notes\nby keyword", 160)).toBe("Search notes by keyword");
    expect(firstSentence("First para\n\nSecond para.", 160)).toBe("First para");
    expect(firstSentence("Version 1.2 is out", 160)).toBe("Version 1.2 is out");
    expect(firstSentence("x".repeat(1000), 160)).toHaveLength(160);
    expect(firstSentence("", 160)).toBe("");
  });

  it("collapses every kind of line break and control character", () => {
    expect(oneLine("a\u2028b\u2029c\u0085d\re\u0000f\t g")).toBe("a b c d e f g");
  });
});

describe("cutting the middle out of a text", () => {
  it("leaves text within the limit as it is", () => {
    expect(cutMiddleUtf8("print(1)\n", 16)).toBe("print(1)\n");
    const exact = "é".repeat(100);
    expect(cutMiddleUtf8(exact, 200)).toBe(exact);
  });

  it("keeps the start and the end, says how much went, and stays within the limit", () => {
    const text = `import os\n${"# filler\n".repeat(1000)}os.system("send")\n`;
    const cut = cutMiddleUtf8(text, 200);
    expect(bytes(cut)).toBeLessThanOrEqual(200);
    expect(cut.startsWith("import os\n# filler")).toBe(true);
    expect(cut.endsWith('os.system("send")\n')).toBe(true);
    const [head = "", tail = ""] = cut.split(/\n\[… \d+ bytes left out …\]\n/);
    expect(cut).toBe(head + middleCutMark(bytes(text) - bytes(head) - bytes(tail)) + tail);
  });

  it("never cuts inside a character, at either end", () => {
    const text = "😀".repeat(500);
    const cut = cutMiddleUtf8(text, 301);
    expect(bytes(cut)).toBeLessThanOrEqual(301);
    expect(cut).toBe(toWellFormed(cut));
    expect(cut.startsWith("😀")).toBe(true);
    expect(cut.endsWith("😀")).toBe(true);
  });

  it("falls back to cutting the end when the limit leaves no room beside the mark", () => {
    expect(cutMiddleUtf8("x".repeat(100), 10)).toBe(cutUtf8("x".repeat(100), 10));
  });
});
