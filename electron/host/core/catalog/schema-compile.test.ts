import type { ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import {
  closeTopLevel,
  compileInputSchema,
  isNestedDeeperThan,
  normaliseInputSchema,
  SCHEMA_MAX_DEPTH,
} from "./schema-compile.js";

type Schema = Record<string, unknown>;

/** A schema whose JSON nesting is exactly `levels` deep (the schema object is level 1). */
function nestedTo(levels: number): Schema {
  let schema: Schema = { type: "string" };
  for (let depth = 1; depth < levels; depth++) schema = { type: "array", items: schema };
  return schema;
}

function compiled(schema: Schema): ValidateFunction {
  const result = compileInputSchema(schema);
  if (!result.ok) throw new Error(`expected a compiled schema, got: ${result.reason}`);
  return result.validate;
}

describe("schema checks", () => {
  it("measures nesting and stops at the limit", () => {
    expect(isNestedDeeperThan(nestedTo(SCHEMA_MAX_DEPTH), 32)).toBe(false);
    expect(isNestedDeeperThan(nestedTo(SCHEMA_MAX_DEPTH + 1), 32)).toBe(true);
    expect(isNestedDeeperThan(nestedTo(100_000), 32)).toBe(true);
  });

  it("counts a cycle as too deep and walks shared sub-schemas once per level", () => {
    const cyclic: Schema = { type: "object", properties: {} };
    (cyclic["properties"] as Schema)["self"] = cyclic;
    expect(isNestedDeeperThan(cyclic, 32)).toBe(true);

    let shared: Schema = { type: "string" };
    for (let i = 0; i < 15; i++) shared = { anyOf: [shared, shared, shared, shared] };
    const started = performance.now();
    expect(isNestedDeeperThan(shared, 32)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("leaves a too-deep schema out with a reason, without throwing", () => {
    const result = compileInputSchema(nestedTo(SCHEMA_MAX_DEPTH + 1));
    expect(result).toEqual({
      ok: false,
      reason: `its input schema is nested deeper than ${SCHEMA_MAX_DEPTH} levels`,
    });
    expect(compileInputSchema(nestedTo(SCHEMA_MAX_DEPTH)).ok).toBe(true);
  });

  it("leaves out schemas ajv cannot compile, without throwing", () => {
    const invalid = compileInputSchema({ type: "object", properties: { a: { type: "nope" } } });
    expect(invalid.ok).toBe(false);
    const dangling = compileInputSchema({ properties: { a: { $ref: "#/$defs/missing" } } });
    expect(!dangling.ok && dangling.reason).toMatch(/^ajv cannot compile/);
    const badPattern = compileInputSchema({ properties: { a: { pattern: "(" } } });
    expect(badPattern.ok).toBe(false);
    const escape = compileInputSchema({ properties: { a: { $ref: "\u001b[31m\n#/x" } } });
    expect(escape.ok).toBe(false);
    expect(!escape.ok && (escape.reason.includes("\u001b") || escape.reason.includes("\n"))).toBe(
      false,
    );
    const draft4 = compileInputSchema({ $schema: "http://json-schema.org/draft-04/schema#" });
    expect(!draft4.ok && draft4.reason).toMatch(/is not draft-07, 2019-09 or 2020-12/);
  });

  it("refuses async schemas, whose validator would pass everything", () => {
    expect(compileInputSchema({ $async: true, type: "object" }).ok).toBe(false);
  });

  it("refuses properties the schema does not declare", () => {
    const validate = compiled({
      type: "object",
      properties: { a: { type: "integer" } },
      required: ["a"],
    });
    expect(validate({ a: 1 })).toBe(true);
    expect(validate({ a: 1, extra: 2 })).toBe(false);
    expect(validate({ a: "1" })).toBe(false);
  });

  it("accepts other properties when the schema allows them", () => {
    expect(compiled({ type: "object", additionalProperties: true })({ anything: 1 })).toBe(true);
    const typed = compiled({ type: "object", additionalProperties: { type: "string" } });
    expect(typed({ x: "y" })).toBe(true);
    expect(typed({ x: 1 })).toBe(false);
    const patterned = compiled({ type: "object", patternProperties: { "^x_": {} } });
    expect(patterned({ x_1: 1 })).toBe(true);
    expect(patterned({ y: 1 })).toBe(false);
  });

  it("keeps names declared through composition and local refs", () => {
    const composed = compiled({
      type: "object",
      allOf: [{ properties: { a: { type: "string" } } }],
      anyOf: [{ properties: { b: {} } }, { properties: { c: {} } }],
    });
    expect(composed({ a: "x", b: 1 })).toBe(true);
    expect(composed({ a: 1, b: 1 })).toBe(false);
    expect(composed({ b: 1, d: 1 })).toBe(false);

    // The shape zod-to-json-schema gives a named schema.
    const referenced = compiled({
      $schema: "http://json-schema.org/draft-07/schema#",
      $ref: "#/definitions/Args",
      definitions: { Args: { type: "object", properties: { q: { type: "string" } } } },
    });
    expect(referenced({ q: "x" })).toBe(true);
    expect(referenced({ q: "x", r: 1 })).toBe(false);
  });

  it("leaves a schema open when it cannot tell which names it declares", () => {
    const remote = { type: "object", allOf: [{ $ref: "https://example.com/args.json" }] };
    expect(closeTopLevel(remote)).toBe(remote);
    const stated = { type: "object", additionalProperties: false };
    expect(closeTopLevel(stated)).toBe(stated);
    const notObject = { type: "string" };
    expect(closeTopLevel(notObject)).toBe(notObject);
  });

  it("never changes the server's schema", () => {
    const schema = { type: "object", properties: { a: {} } };
    const before = JSON.stringify(schema);
    compiled(schema);
    expect(JSON.stringify(schema)).toBe(before);
  });

  it("compiles draft-07, 2019-09 and 2020-12 schemas", () => {
    for (const $schema of [
      "http://json-schema.org/draft-07/schema#",
      "https://json-schema.org/draft/2019-09/schema",
      "https://json-schema.org/draft/2020-12/schema",
    ]) {
      const validate = compiled({ $schema, type: "object", properties: { a: { type: "string" } } });
      expect(validate({ a: "x" })).toBe(true);
      expect(validate({ b: "x" })).toBe(false);
    }
    const tuple = compiled({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      properties: { p: { type: "array", prefixItems: [{ type: "string" }] } },
    });
    expect(tuple({ p: [1] })).toBe(false);
  });

  it("keeps one tool's $id from answering another tool's $ref", () => {
    const first = compiled({ $id: "https://x.example/shared", type: "object" });
    expect(first({})).toBe(true);
    const second = compileInputSchema({
      type: "object",
      properties: { a: { $ref: "https://x.example/shared" } },
    });
    expect(second.ok).toBe(false);
    expect(compileInputSchema({ $id: "https://x.example/shared", type: "object" }).ok).toBe(true);
  });

  it("treats a missing or non-object input schema as an empty object schema", () => {
    for (const garbage of [undefined, null, 7, "x", [], true]) {
      const schema = normaliseInputSchema(garbage);
      expect(schema).toEqual({ type: "object" });
      const validate = compiled(schema);
      expect(validate({})).toBe(true);
      expect(validate({ a: 1 })).toBe(false);
    }
  });

  it("runs pattern and patternProperties on the linear-time engine", () => {
    const validate = compiled({
      type: "object",
      properties: { q: { type: "string", pattern: "^(\\w+\\s?)*$" } },
      patternProperties: { "^x_(\\w+\\s?)*$": { type: "string" } },
    });
    const evil = `${"a".repeat(34)}!`;
    // On JavaScript's RegExp, either check would block the host for minutes.
    expect(validate({ q: evil })).toBe(false);
    expect(validate({ [`x_${evil}`]: "v" })).toBe(false);
    expect(validate({ q: "two words", x_ok: "v" })).toBe(true);
  });

  it("leaves out a tool whose pattern needs backtracking, saying which and why", () => {
    const result = compileInputSchema({
      type: "object",
      properties: { q: { type: "string", pattern: "^(?=.*\\d)\\w+$" } },
    });
    expect(result).toEqual({
      ok: false,
      reason:
        'its input schema\'s pattern "^(?=.*\\\\d)\\\\w+$" cannot run on a linear-time engine: ' +
        "it uses a lookahead",
    });
    const backref = compileInputSchema({ patternProperties: { "(a)\\1": true } });
    expect(backref.ok ? "" : backref.reason).toContain("it uses a backreference");
  });

  it("enforces format keywords", () => {
    const validate = compiled({
      type: "object",
      properties: { when: { type: "string", format: "date-time" } },
    });
    expect(validate({ when: "2026-12-01T21:00:00Z" })).toBe(true);
    expect(validate({ when: "yesterday" })).toBe(false);
  });
});
