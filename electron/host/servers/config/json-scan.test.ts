import { describe, expect, it } from "vitest";

import { lineAndColumn, scanJson, CONFIG_MAX_NESTING } from "./json-scan.js";

/** Where the scan puts the first syntax error, or null when it finds none. */
function errorAt(text: string): { line: number; column: number; message: string } | null {
  const scan = scanJson(text, "mcpServers");
  return scan.ok ? null : { ...lineAndColumn(text, scan.position), message: scan.message };
}

describe("the strict JSON scan", () => {
  it.each([
    ["", 1, 1, "the text ends too early"],
    ['{"mcpServers": {}', 1, 18, "the text ends too early"],
    ['{"mcpServers": }', 1, 16, 'unexpected character "}"'],
    ['{"mcpServers" {}}', 1, 15, 'expected ":" after a property name'],
    ['{"a": 1 "b": 2}', 1, 9, 'expected "," or "}" after a property value'],
    ["[1 2]", 1, 4, 'expected "," or "]" after an array item'],
    ["[1,]", 1, 4, 'unexpected character "]"'],
    ["{'a': 1}", 1, 2, "expected a property name in double quotes"],
    ['{"a": "x\ty"}', 1, 9, "a control character inside a string must be escaped"],
    ['{"a": "\\x"}', 1, 9, "invalid escape in a string"],
    ['{"a": "\\u12G4"}', 1, 9, "\\u must be followed by four hex digits"],
    ['{"a": 01}', 1, 8, 'expected "," or "}" after a property value'],
    ['{"a": 1.}', 1, 9, "a number needs a digit here"],
    ['{"a": -}', 1, 8, "a number needs a digit here"],
    ['{"a": tru}', 1, 7, 'unexpected character "t"'],
    ["{} {}", 1, 4, "unexpected text after the JSON value"],
    ['\r\n{\r\n  "a" 1}', 3, 7, 'expected ":" after a property name'],
  ])("places the error in %j at line %i, column %i", (text, line, column, what) => {
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
    expect(errorAt(text)).toEqual({ line, column, message: what });
  });

  it("accepts every JSON form the strict scanner might trip on", () => {
    const text = `{"mcpServers": {"s": {"command": "x\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9", "args": [], "env": {}}}, "n": [0, -0.5e+10, 1E-2, 12, true, false, null, {}, [[]], "ü😀"]}`;
    expect(JSON.parse(text)).toBeTruthy();
    expect(scanJson(text, "mcpServers")).toEqual({ ok: true, duplicates: [], order: ["s"] });
  });

  it("stops at absurd nesting instead of overflowing the stack", () => {
    const text = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect(errorAt(text)?.message).toBe(`nested deeper than ${CONFIG_MAX_NESTING} levels`);
  });

  it("finds every duplicate key once, and the file order of one object's keys", () => {
    const text =
      '{"mcpServers": {"2": {}, "a": {"k": 1, "k": 2, "k": 3}, "1": {}}, "x": 1, "x": 2}';
    expect(scanJson(text, "mcpServers")).toEqual({
      ok: true,
      duplicates: [["mcpServers", "a", "k"], ["x"]],
      order: ["2", "a", "1"],
    });
    expect(scanJson('{"other": {}}', "mcpServers")).toMatchObject({ ok: true, order: null });
  });
});
