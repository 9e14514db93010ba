import { describe, expect, it } from "vitest";
import { PARAM_LIST_MAX_CHARS } from "./schema-render.js";
import {
  keywordFor,
  PARAM_DOC_MAX_CHARS,
  PARAM_DOCS_MAX,
  renderParamDocs,
  renderReturnType,
  renderSignatureParams,
  RETURN_TYPE_MAX_CHARS,
  UNTYPED_RESULT,
} from "./tool-signature.js";

describe("typed signatures", () => {
  it("makes every parameter keyword-only, typed from the schema, optional ones `| None = None`", () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string" },
        qty: { type: "integer" },
        price: { type: "number" },
        gift: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } },
        size: { enum: ["S", "M", "L"] },
        meta: { type: "object", additionalProperties: { type: "integer" } },
        address: {
          type: "object",
          properties: { city: { type: "string" }, zip: { type: "string" } },
          required: ["city"],
        },
        note: { type: ["string", "null"] },
      },
      required: ["name", "qty", "size"],
    };
    expect(renderSignatureParams(schema)).toBe(
      "*, name: str, qty: int, price: float | None = None, gift: bool | None = None, " +
        'tags: list[str] | None = None, size: Literal["S", "M", "L"], ' +
        "meta: dict[str, int] | None = None, " +
        "address: dict{city: str, zip: str (optional)} | None = None, note: str | None = None",
    );
    expect(renderSignatureParams({ type: "object" })).toBe("");
    expect(renderSignatureParams(undefined)).toBe("");
  });

  it("shows a parameter that may be null as `T | None`: without a default when required", () => {
    // Every form a schema can give null in, each with the type the bridge's validator takes.
    const forms: [string, unknown, string][] = [
      ["type list", { type: ["string", "null"] }, "str | None"],
      ["null first", { type: ["null", "integer"] }, "int | None"],
      ["anyOf", { anyOf: [{ type: "string" }, { type: "null" }] }, "str | None"],
      ["oneOf, null first", { oneOf: [{ type: "null" }, { type: "number" }] }, "float | None"],
      ["OpenAPI nullable", { type: "string", nullable: true }, "str | None"],
      ["enum with null", { enum: ["a", "b", null] }, 'Literal["a", "b"] | None'],
      [
        "typed nullable enum",
        { type: ["string", "null"], enum: ["a", null] },
        'Literal["a"] | None',
      ],
      [
        "anyOf enum",
        { anyOf: [{ enum: ["a", "b"] }, { type: "null" }] },
        'Literal["a", "b"] | None',
      ],
      ["array", { type: ["array", "null"], items: { type: "string" } }, "list[str] | None"],
      [
        "array anyOf",
        { anyOf: [{ type: "array", items: { type: "integer" } }, { const: null }] },
        "list[int] | None",
      ],
      [
        "object",
        { type: ["object", "null"], additionalProperties: { type: "integer" } },
        "dict[str, int] | None",
      ],
      [
        "nullable items",
        { type: "array", items: { type: ["string", "null"] } },
        "list[str | None]",
      ],
      ["null alone", { type: "null" }, "None"],
      [
        "nested anyOf",
        { anyOf: [{ anyOf: [{ type: "null" }] }, { type: "string" }] },
        "str | None",
      ],
      ["two types", { type: ["string", "integer", "null"] }, "str | int | None"],
    ];
    for (const [form, node, type] of forms) {
      const schema = { type: "object", properties: { x: node } };
      expect(renderSignatureParams({ ...schema, required: ["x"] }), form).toBe(`*, x: ${type}`);
      // Optional: `| None` once, then the default.
      const optional = type === "None" || type.endsWith("| None") ? type : `${type} | None`;
      expect(renderSignatureParams(schema), form).toBe(`*, x: ${optional} = None`);
    }
  });

  it("shows null only where the whole schema takes it: an enum without null refuses it", () => {
    const schema = {
      type: "object",
      properties: {
        // `nullable` widens the type, but the enum still refuses null.
        a: { type: "string", nullable: true, enum: ["x", "y"] },
        // The enum names null, but the type refuses it.
        b: { type: "string", enum: ["x", null] },
        c: { type: "string", enum: [null] },
      },
      required: ["a", "b", "c"],
    };
    expect(renderSignatureParams(schema)).toBe(
      '*, a: Literal["x", "y"], b: Literal["x"], c: never',
    );
  });

  it("passes names that are not identifiers through **{...}, keywords with a trailing _", () => {
    const schema = {
      type: "object",
      properties: { "item name": { type: "string" }, from: { type: "string" }, "x-y": {} },
      required: ["item name"],
      additionalProperties: { type: "string" },
    };
    expect(renderSignatureParams(schema)).toBe(
      '*, from_: str | None = None, **{"item name": str, "x-y": any}, **more: str',
    );
    // With no named parameter before it, no bare `*` (Python refuses one there).
    expect(
      renderSignatureParams({ type: "object", properties: { "a b": { type: "string" } } }),
    ).toBe('**{"a b": str | None}');
    expect(renderSignatureParams({ type: "object", additionalProperties: true })).toBe(
      "**more: any",
    );
    // A schema that declares `from_` too leaves `from` to **{...}.
    expect(keywordFor("from", new Set(["from", "from_"]))).toBeNull();
    expect(keywordFor("from", new Set(["from"]))).toBe("from_");
    expect(keywordFor("café", new Set())).toBeNull();
    expect(keywordFor("x".repeat(65), new Set())).toBeNull();
    expect(keywordFor("print", new Set())).toBe("print");
  });

  it("returns what the output schema says, else nothing is promised", () => {
    expect(
      renderReturnType({
        type: "object",
        properties: { total: { type: "number" }, items: { type: "integer" } },
      }),
    ).toBe("dict{total: float (optional), items: int (optional)}");
    expect(renderReturnType(undefined)).toBe(UNTYPED_RESULT);
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 500; i++) wide[`field_${i}`] = { type: "string" };
    expect(renderReturnType({ type: "object", properties: wide }).length).toBeLessThanOrEqual(
      RETURN_TYPE_MAX_CHARS,
    );
  });

  it("documents each described parameter on a line, its first sentence, bounded", () => {
    const schema = {
      properties: {
        qty: { type: "integer", description: "How many. At least one." },
        from: { description: `${"Very long. ".repeat(1)}${"x".repeat(300)}` },
        "item name": { description: "The name.\nMore lines." },
        quiet: { type: "boolean" },
      },
    };
    const docs = renderParamDocs(schema);
    expect(docs[0]).toBe("qty: How many.");
    expect(docs[1]).toBe("from_: Very long.");
    expect(docs[2]).toBe('"item name": The name.');
    expect(docs).toHaveLength(3);
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) many[`p${i}`] = { description: "y".repeat(1_000) };
    const bounded = renderParamDocs({ properties: many });
    expect(bounded).toHaveLength(PARAM_DOCS_MAX);
    for (const line of bounded) expect(line.length).toBeLessThanOrEqual(5 + PARAM_DOC_MAX_CHARS);
  });

  it("stays within its caps whatever the schema (huge, cyclic)", () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++)
      wide[`p${i}`] = { enum: Array.from({ length: 50 }, (_, k) => k) };
    for (const schema of [cyclic, { type: "object", properties: wide }]) {
      expect(renderSignatureParams(schema).length).toBeLessThanOrEqual(PARAM_LIST_MAX_CHARS);
    }
  });
});
