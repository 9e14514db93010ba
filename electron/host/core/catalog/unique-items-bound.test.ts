import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { makeTool } from "../../../../test-support/bridge-fixture.js";
import { checkSchema } from "../bridge/call-verdicts.js";
import { compileInputSchema } from "./schema-compile.js";
import { UNIQUE_ITEMS_ARRAY_MAX } from "./unique-items-bound.js";

const SCHEMA = {
  type: "object",
  properties: { tags: { type: "array", uniqueItems: true }, note: { type: "string" } },
};

/** As many distinct small objects as a call's arguments can hold: `{"tags":[{"a":0},...]}`. */
function mostItems(): Record<string, unknown> {
  const tags: unknown[] = [];
  let bytes = '{"tags":[]}'.length;
  for (let i = 0; ; i++) {
    const more = JSON.stringify({ a: i }).length + 1;
    if (bytes + more > BRIDGE_LIMITS.argsMaxBytes) break;
    tags.push({ a: i });
    bytes += more;
  }
  return { tags };
}

function compiled(schema: Record<string, unknown>) {
  const result = compileInputSchema(schema);
  if (!result.ok) throw new Error(result.reason);
  return result.validate;
}

describe("uniqueItems, which ajv checks by comparing every pair of items", () => {
  it("an array too long to compare pair by pair is refused before ajv sees it", () => {
    // Attack: the code fills a call's 16 KiB with ~1,500 distinct objects; ajv took ~90 ms of
    // the host's thread to compare them all, per call, so a run's 200 calls took ~20 s.
    const args = mostItems();
    expect((args.tags as unknown[]).length).toBeGreaterThan(3 * UNIQUE_ITEMS_ARRAY_MAX);
    const tool = { ...makeTool({ pyName: "tag", schema: SCHEMA }), validate: compiled(SCHEMA) };
    const started = performance.now();
    const verdict = checkSchema(tool, args);
    const ms = performance.now() - started;
    expect(verdict?.text).toBe(
      `/tags must have at most ${UNIQUE_ITEMS_ARRAY_MAX} items (the schema asks for unique items)`,
    );
    expect(ms).toBeLessThan(50);
  });

  it("arrays within the bound are checked by ajv as before, errors and all", () => {
    const validate = compiled(SCHEMA);
    const tags = Array.from({ length: UNIQUE_ITEMS_ARRAY_MAX }, (_, a) => ({ a }));
    expect(validate({ tags })).toBe(true);
    expect(validate({ tags: [{ a: 1 }, { a: 1 }] })).toBe(false);
    expect(validate.errors?.[0]?.keyword).toBe("uniqueItems");
    expect(validate({ note: 5 })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/note");
  });

  it("unique items typed as one scalar type, which ajv checks through a hash, have no bound", () => {
    // An honest tool: unique ids or labels. ajv checks these in one pass, so a call with more
    // than the bound's items was refused for nothing, its error blaming unique items.
    const schema = {
      type: "object",
      properties: {
        ids: { type: "array", items: { type: "integer" }, uniqueItems: true },
        labels: { type: "array", items: { type: ["string", "null"] }, uniqueItems: true },
      },
    };
    const count = 2 * UNIQUE_ITEMS_ARRAY_MAX;
    const ids = Array.from({ length: count }, (_, i) => i);
    const labels = ids.map((i) => `l${i}`);
    const tool = { ...makeTool({ pyName: "tag", schema }), validate: compiled(schema) };
    expect(JSON.stringify({ ids, labels }).length).toBeLessThan(BRIDGE_LIMITS.argsMaxBytes);
    expect(checkSchema(tool, { ids, labels })).toBeUndefined();
    expect(checkSchema(tool, { ids: [...ids, 7] })?.text).toMatch(/duplicate/);
  });

  it("a schema that never asks for unique items has no bound on its arrays", () => {
    const plain = { type: "object", properties: { tags: { type: "array" } } };
    expect(compiled(plain)(mostItems())).toBe(true);
  });
});
