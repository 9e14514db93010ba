import { describe, expect, it } from "vitest";
import { jsonUtf8Bytes } from "./json-bytes.js";

const exact = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");

describe("jsonUtf8Bytes", () => {
  const cases: [string, unknown][] = [
    ["null", null],
    ["numbers", [0, -1.5, 1e21, Number.NaN, Infinity]],
    ["booleans", { a: true, b: false }],
    ["empty containers", { a: {}, b: [] }],
    ["escapes", 'quote " backslash \\ newline \n tab \t bell \u0007 nul \u0000'],
    ["multi-byte text", "é 漢字 😀"],
    ["lone surrogates", ["\ud800", "a\udc00b", "\ud83d"]],
    ["left-out fields", { a: undefined, b: () => 1, c: 1, d: [undefined] }],
    ["toJSON", { when: new Date(0) }],
    [
      "an MCP result's content",
      [
        { type: "text", text: JSON.stringify({ rows: [1, 2, 3], name: "ünïcode" }) },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a", text: "x" } },
      ],
    ],
  ];
  for (const [name, value] of cases) {
    it(`counts ${name} as JSON.stringify's UTF-8 bytes`, () => {
      expect(jsonUtf8Bytes(value)).toBe(exact(value));
    });
  }

  it("handles nesting deeper than the call stack would allow", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonUtf8Bytes(deep)).toBe(200_000 + 3);
  });
});
