import { describe, expect, it } from "vitest";
import { makeTool } from "../../../../test-support/bridge-fixture.js";
import { checkSchema } from "../bridge/call-verdicts.js";
import { compileInputSchema } from "./schema-compile.js";

function compiled(schema: Record<string, unknown>) {
  const result = compileInputSchema(schema);
  if (!result.ok) throw new Error(result.reason);
  return result.validate;
}

describe("uniqueItems", () => {
  it('refuses "__proto__" twice in unique strings', () => {
    // Attack: ajv looked each string up in a plain object, where "__proto__" finds the
    // prototype, so the duplicate passed the schema and reached the server.
    const schema = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
    };
    const tool = {
      ...makeTool({ pyName: "tag" }),
      inputSchema: schema,
      validate: compiled(schema),
    };
    const args = JSON.parse('{"tags":["__proto__","__proto__"]}') as Record<string, unknown>;
    expect(checkSchema(tool, args)?.text).toBe(
      "/tags must NOT have duplicate items (items ## 0 and 1 are identical)",
    );
    expect(checkSchema(tool, { tags: ["__proto__", "constructor", "toString"] })).toBeUndefined();
  });

  it("means what ajv's uniqueItems means: deep equality, keys in any order, types apart", () => {
    const validate = compiled({ properties: { xs: { uniqueItems: true } } });
    const cases: [unknown[], boolean][] = [
      [[1, 2, 3], true],
      [[1, 2, 1], false],
      [["1", 1], true],
      [[0, -0], false],
      [[null, "null"], true],
      [
        [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
        false,
      ],
      [[{ a: 1 }, { a: 2 }], true],
      [
        [
          [1, 2],
          [2, 1],
        ],
        true,
      ],
      [
        [
          [1, { c: 1 }],
          [1, { c: 1 }],
        ],
        false,
      ],
      [[true, false, "true"], true],
    ];
    for (const [xs, ok] of cases) expect({ xs, ok: validate({ xs }) }).toEqual({ xs, ok });
    expect(compiled({ properties: { xs: { uniqueItems: false } } })({ xs: [1, 1] })).toBe(true);
    // Not an array: the keyword does not apply.
    expect(validate({ xs: "aa" })).toBe(true);
  });
});
