import { describe, expect, it } from "vitest";
import { codePointLabel, firstHiddenChar, isHiddenChar, visibleText } from "./hidden-chars.js";

describe("hidden characters", () => {
  it("counts as hidden what a person cannot see or what reorders text, nothing printable", () => {
    const hidden = [
      0x00, 0x09, 0x0a, 0x7f, 0x85, 0xa0, 0xad, 0x034f, 0x061c, 0x115f, 0x180e, 0x200b, 0x200d,
      0x200e, 0x2028, 0x202a, 0x202e, 0x2060, 0x2066, 0x2069, 0x3000, 0x3164, 0xfe0f, 0xfeff,
      0xd800, 0xe000, 0xe0001, 0xe0041, 0xe007f, 0xe0100, 0xf0000,
    ];
    for (const code of hidden) expect([code, isHiddenChar(code)]).toEqual([code, true]);
    for (const ch of ["a", "Z", "_", "-", " ", "é", "日", "✓", "\u{1F600}", "ß", "ы"]) {
      expect([ch, isHiddenChar(ch.codePointAt(0) as number)]).toEqual([ch, false]);
    }
  });

  it("finds the first hidden character, and names it as people look it up", () => {
    expect(firstHiddenChar("send")).toBeNull();
    expect(firstHiddenChar("send\u{E0041}\u200B")).toBe(0xe0041);
    expect(codePointLabel(0x202e)).toBe("U+202E");
    expect(codePointLabel(0xe0041)).toBe("U+E0041");
    expect(codePointLabel(0x9)).toBe("U+0009");
  });

  it("shows each hidden character escaped, and leaves the rest as it is", () => {
    expect(visibleText("send\u{E0041}\u{E0042}")).toBe("send\\u{E0041}\\u{E0042}");
    expect(visibleText("report\u202Etxt.exe")).toBe("report\\u{202E}txt.exe");
    expect(visibleText("a\u200Bb\nc")).toBe("a\\u{200B}b\\u{A}c");
    expect(visibleText("a\nb\r", { multiline: true })).toBe("a\nb\\u{D}");
    expect(visibleText("café ✓ 日本語 \u{1F600}")).toBe("café ✓ 日本語 \u{1F600}");
    expect(visibleText("\uD800x")).toBe("\\u{D800}x");
  });

  it("cuts after escaping, never inside an escape, and only what does not fit", () => {
    expect(visibleText("abcdef", { maxChars: 6 })).toBe("abcdef");
    expect(visibleText("abcdefg", { maxChars: 6 })).toBe("abcde…");
    // Each tag character shows as nine characters: two fit in 20 with the "…".
    const tags = `s${"\u{E0041}".repeat(520)}`;
    expect(visibleText(tags, { maxChars: 20 })).toBe("s\\u{E0041}\\u{E0041}…");
    expect(visibleText(tags, { maxChars: 20 }).length).toBeLessThanOrEqual(20);
  });
});
