import { describe, expect, it } from "vitest";
import {
  renderParamList,
  renderParamName,
  renderParamNames,
  SUMMARY_PARAMS_MAX_CHARS,
  PARAM_NAME_MAX_CHARS,
  PARAM_LIST_MAX_CHARS,
  LITERAL_MAX_CHARS,
  STUB_TYPE_DEPTH,
  ENUM_SHOWN_MAX,
} from "./schema-render.js";

type Schema = Record<string, unknown>;

function nestedArrays(levels: number): Schema {
  let schema: Schema = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "array", items: schema };
  return schema;
}

describe("schema rendering", () => {
  it("renders the add tool docs/architecture.md shows", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "integer" }, b: { type: "integer" } },
      required: ["a", "b"],
    };
    expect(renderParamList(schema)).toBe("a: int, b: int");
  });

  it("marks optional parameters and renders lists and enums", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
        mode: { enum: ["fast", "slow"] },
      },
      required: ["a", "mode"],
    };
    expect(renderParamList(schema)).toBe(
      'a: int, tags: list[str] (optional), mode: "fast" | "slow"',
    );
  });

  it("maps every JSON Schema type to a Python one", () => {
    const schema = {
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        n: { type: "number" },
        b: { type: "boolean" },
        z: { type: "null" },
        u: { type: ["string", "null"] },
        any: {},
        o: { type: "object", properties: { x: { type: "integer" } }, required: ["x"] },
        m: { type: "object", additionalProperties: { type: "number" } },
        d: { type: "object" },
        l: { type: "array" },
        a: { anyOf: [{ type: "string" }, { type: "integer" }] },
        one: { oneOf: [{ type: "boolean" }, { $ref: "#/$defs/Thing" }] },
        r: { $ref: "#/$defs/Thing" },
        c: { const: 3 },
        e: { enum: [1, true, null, "x"] },
      },
      required: [
        "s",
        "i",
        "n",
        "b",
        "z",
        "u",
        "any",
        "o",
        "m",
        "d",
        "l",
        "a",
        "one",
        "r",
        "c",
        "e",
      ],
    };
    expect(renderParamList(schema)).toBe(
      "s: str, i: int, n: float, b: bool, z: None, u: str | None, any: any, " +
        "o: dict{x: int}, m: dict[str, float], d: dict, l: list, a: str | int, " +
        // None comes last, whatever its place in the schema.
        'one: bool | object, r: object, c: 3, e: 1 | True | "x" | None',
    );
  });

  it("says which other keys the schema allows", () => {
    expect(renderParamList({ type: "object", additionalProperties: true })).toBe("...: any");
    expect(
      renderParamList({
        properties: { a: { type: "string" } },
        required: ["a"],
        additionalProperties: { type: "integer" },
      }),
    ).toBe("a: str, ...: int");
  });

  it("stops types at stubTypeDepth levels", () => {
    const rendered = renderParamList({
      properties: { deep: nestedArrays(50) },
      required: ["deep"],
    });
    const depth = STUB_TYPE_DEPTH;
    expect(rendered).toBe(`deep: ${"list[".repeat(depth)}...${"]".repeat(depth)}`);
    const fits = renderParamList({
      properties: { deep: nestedArrays(depth - 1) },
      required: ["deep"],
    });
    expect(fits).toBe(`deep: ${"list[".repeat(depth - 1)}str${"]".repeat(depth - 1)}`);
  });

  it("renders hostile schemas bounded: cycles through shared references", () => {
    const node: Schema = { type: "object", properties: {} };
    (node["properties"] as Schema)["self"] = node;
    (node["properties"] as Schema)["list"] = { type: "array", items: node };
    const rendered = renderParamList(node);
    expect(rendered).toContain("...");
    expect(rendered.length).toBeLessThanOrEqual(PARAM_LIST_MAX_CHARS);

    const loop: Schema = {};
    loop["anyOf"] = [loop, loop];
    expect(renderParamList({ properties: { x: loop } })).toBe("x: ... | ... (optional)");
  });

  it("renders hostile schemas bounded: shared sub-schemas that fan out", () => {
    let node: Schema = { type: "string" };
    for (let i = 0; i < 40; i++) node = { anyOf: Array<Schema>(1000).fill(node) };
    const started = performance.now();
    const rendered = renderParamList({ properties: { x: node, y: node } });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(rendered.length).toBeLessThanOrEqual(PARAM_LIST_MAX_CHARS);
  });

  it("renders hostile schemas bounded: ten thousand properties", () => {
    const properties: Schema = {};
    for (let i = 0; i < 10_000; i++) properties[`param_${i}`] = { type: "string" };
    const rendered = renderParamList({ type: "object", properties });
    expect(rendered.length).toBe(PARAM_LIST_MAX_CHARS);
    expect(rendered.endsWith("…")).toBe(true);
    expect(rendered.startsWith("param_0: str (optional), param_1: str (optional)")).toBe(true);
    expect(renderParamNames({ properties }).length).toBeLessThanOrEqual(
      SUMMARY_PARAMS_MAX_CHARS + 5,
    );
  });

  it("renders hostile schemas bounded: huge enums and long literals", () => {
    const values = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const rendered = renderParamList({ properties: { e: { enum: values } }, required: ["e"] });
    expect(rendered).toBe(
      `e: ${values
        .slice(0, ENUM_SHOWN_MAX)
        .map((v) => `"${v}"`)
        .join(" | ")} | ...`,
    );
    const long = renderParamList({ properties: { c: { const: "y".repeat(10_000) } } });
    expect(long.length).toBeLessThan(LITERAL_MAX_CHARS + 30);
  });

  it("quotes odd or long parameter names and cuts them", () => {
    expect(renderParamName("plain_name")).toBe("plain_name");
    expect(renderParamName("with space")).toBe('"with space"');
    expect(renderParamName('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
    expect(renderParamName("line\u2028break")).toBe('"line\\u2028break"');
    expect(renderParamName("1st")).toBe('"1st"');
    const long = "n".repeat(10_000);
    const shown = renderParamName(long);
    expect(JSON.parse(shown)).toBe(`${"n".repeat(PARAM_NAME_MAX_CHARS - 1)}…`);
    expect(renderParamName("n".repeat(PARAM_NAME_MAX_CHARS))).toBe(
      "n".repeat(PARAM_NAME_MAX_CHARS),
    );
    expect(Array.from(JSON.parse(renderParamName("😀".repeat(500))) as string)).toHaveLength(
      PARAM_NAME_MAX_CHARS,
    );
  });

  it("treats garbage as no parameters or as any", () => {
    for (const garbage of [42, "x", null, [], true, { properties: "nope" }, { properties: [] }]) {
      expect(renderParamList(garbage)).toBe("");
    }
    expect(renderParamList({ properties: { a: 5, b: null, c: [1] } })).toBe(
      "a: any (optional), b: any (optional), c: any (optional)",
    );
    expect(renderParamList({ properties: { a: { type: 7 } }, required: "a" })).toBe(
      "a: any (optional)",
    );
  });

  it("never reads keywords off Object.prototype", () => {
    const schema = JSON.parse(
      '{"properties":{"__proto__":{"type":"string"},"b":{"type":"constructor"}},"required":["__proto__"]}',
    ) as unknown;
    expect(renderParamList(schema)).toBe("__proto__: str, b: any (optional)");
    expect(renderParamList({ properties: { a: { type: "toString" } } })).toBe("a: any (optional)");
  });

  it("lists parameter names for summaries, bounded", () => {
    expect(renderParamNames({ properties: { a: {}, "b c": {} } })).toBe('a, "b c"');
    expect(renderParamNames({})).toBe("");
    expect(renderParamNames({ properties: { ["x".repeat(500)]: {} } })).toBe(
      `"${"x".repeat(PARAM_NAME_MAX_CHARS - 1)}…"`,
    );
  });
});
