import { describe, expect, it } from "vitest";
import { jsonLengthUpTo } from "./json-size.js";

describe("jsonLengthUpTo", () => {
  it("counts exactly what JSON.stringify would write", () => {
    const values: unknown[] = [
      null,
      0,
      -1.5e-7,
      true,
      false,
      "",
      'quote " backslash \\ newline \n tab \t ünï \u0001 😀',
      [],
      {},
      [1, "a", null, undefined, () => 1, [[]], {}],
      { a: 1, b: undefined, c: () => 1, 'k"e\ny': [true, { d: "x" }], e: Number.NaN },
      { when: new Date(0), nested: { deep: [{ deeper: [1, 2, 3] }] } },
    ];
    for (const value of values) {
      expect(jsonLengthUpTo(value, Number.MAX_SAFE_INTEGER)).toBe(JSON.stringify(value).length);
    }
  });

  it("stops counting once past the cap, for a value JSON.stringify cannot even build", () => {
    // 600 strings of a million characters: past V8's longest string (2^29 - 24) as one JSON
    // text, so JSON.stringify would throw RangeError after building half a gigabyte.
    const big = "x".repeat(1_000_000);
    const huge = Array.from({ length: 600 }, () => big);
    expect(jsonLengthUpTo(huge, 16 * 1024 * 1024)).toBeGreaterThan(16 * 1024 * 1024);
  });

  it("survives a reply nested far deeper than the call stack", () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(jsonLengthUpTo(deep, Number.MAX_SAFE_INTEGER)).toBe(400_002);
  });
});
