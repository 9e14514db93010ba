import { describe, expect, it } from "vitest";
import { escapeUnseen } from "./escape-unseen.js";

describe("escapeUnseen", () => {
  it("writes each code point that hides or reorders text as its escape, and nothing else", () => {
    const cases: [string, string][] = [
      ["\u202e", "\\u202e"], // right-to-left override
      ["\u2066", "\\u2066"], // left-to-right isolate
      ["\u061c", "\\u061c"], // Arabic letter mark
      ["\u200b", "\\u200b"], // zero-width space
      ["\u200d", "\\u200d"], // zero-width joiner
      ["\ufeff", "\\ufeff"], // byte order mark
      ["\u00ad", "\\u00ad"], // soft hyphen
      ["\u007f", "\\u007f"], // delete
      ["\u0085", "\\u0085"], // next line
      ["\u2028", "\\u2028"],
      ["\u2029", "\\u2029"],
      ["\u115f", "\\u115f"], // Hangul choseong filler
      ["\ufe0f", "\\ufe0f"], // variation selector
      ["\u{e0041}", "\\udb40\\udc41"], // tag letter A
      ["\ue000", "\\ue000"], // private use
      ["\u{10ffff}", "\\udbff\\udfff"], // unassigned
      ["é", "é"],
      ["東京", "東京"],
      ["👋🏽", "👋🏽"],
      ['{\n  "a": 1\n}', '{\n  "a": 1\n}'],
    ];
    for (const [text, shown] of cases) {
      const json = JSON.stringify({ a: text });
      expect(escapeUnseen(json)).toBe(JSON.stringify({ a: text }).replace(text, shown));
      expect(JSON.parse(escapeUnseen(json))).toEqual({ a: text });
    }
  });

  it("returns the text itself when there is nothing to escape", () => {
    const text = JSON.stringify({ path: "notes/café.md" });
    expect(escapeUnseen(text)).toBe(text);
  });

  it("takes linear time: a megabyte of code points to escape", () => {
    const text = JSON.stringify({ a: "\u200ba".repeat(512 * 1024) });
    const started = performance.now();
    const shown = escapeUnseen(text);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(shown.length).toBe(text.length + 5 * 512 * 1024);
  });
});
