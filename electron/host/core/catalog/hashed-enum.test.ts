import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { makeTool } from "../../../../test-support/bridge-fixture.js";
import { checkSchema } from "../bridge/call-verdicts.js";
import { compileInputSchema } from "./schema-compile.js";

function compiled(schema: Record<string, unknown>) {
  const result = compileInputSchema(schema);
  if (!result.ok) throw new Error(result.reason);
  return result.validate;
}

describe("enum, which ajv checked by comparing the value with each allowed one", () => {
  it("costs a lookup per value: a call's 16 KiB of items checked against a 100,000-value enum", () => {
    // Attack: a server's tool takes an array of items from a 100,000-value enum; the code fills
    // a call's 16 KiB with the last value (~1,800 items): ajv compared each with every value,
    // ~3.8 s of the host's thread per call, minutes for a run's 200 calls.
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const schema = {
      type: "object",
      properties: { xs: { type: "array", items: { enum: values } } },
    };
    const last = values.at(-1)!;
    const xs = Array.from(
      { length: Math.floor((BRIDGE_LIMITS.argsMaxBytes - 16) / 9) },
      () => last,
    );
    expect(Buffer.byteLength(JSON.stringify({ xs }))).toBeLessThanOrEqual(
      BRIDGE_LIMITS.argsMaxBytes,
    );
    // The fixture's own ajv would check this schema against its meta-schema pair by pair.
    const tool = {
      ...makeTool({ pyName: "pick" }),
      inputSchema: schema,
      validate: compiled(schema),
    };
    const started = performance.now();
    expect(checkSchema(tool, { xs })).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(100);
    // Refused as before, naming the place and ajv's own words.
    expect(checkSchema(tool, { xs: [last, "v100000"] })?.text).toBe(
      "/xs/1 must be equal to one of the allowed values",
    );
  });

  it("means what ajv's enum means: === for scalars, deep equality (keys in any order) for the rest", () => {
    const allowed = [{ a: 1, b: [1, 2] }, 3, "3", null, false, [1, { c: 2 }], 0];
    const validate = compiled({ properties: { x: { enum: allowed } } });
    const cases: [unknown, boolean][] = [
      [{ a: 1, b: [1, 2] }, true],
      [{ b: [1, 2], a: 1 }, true],
      [{ a: 1, b: [2, 1] }, false],
      [{ a: 1 }, false],
      [3, true],
      ["3", true],
      [null, true],
      [false, true],
      [-0, true],
      [[1, { c: 2 }], true],
      [[{ c: 2 }, 1], false],
      [4, false],
      ["null", false],
      [true, false],
      ["", false],
      [{}, false],
      [[], false],
    ];
    for (const [x, ok] of cases) expect({ x, ok: validate({ x }) }).toEqual({ x, ok });
    // Small enums and enums nested in composition, as before.
    const small = compiled({ properties: { y: { anyOf: [{ enum: ["a"] }, { enum: [1, 2] }] } } });
    expect([small({ y: "a" }), small({ y: 2 }), small({ y: "b" })]).toEqual([true, true, false]);
  });
});
