import { describe, expect, it } from "vitest";
import { resultForm } from "../bridge/result-form.js";
import { buildCatalog } from "./catalog-builder.js";
import { INPUT_SCHEMA_UNFOLDED_MAX, OUTPUT_SCHEMA_UNFOLDED_MAX } from "./schema-compile.js";
import { unfoldedSizeOver } from "./unfolded-size.js";

/** `levels` definitions, each three alternatives that all refer to the next: 3^levels unfolded. */
function fanOut(levels: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) {
    const next = { $ref: `#/$defs/L${i + 1}` };
    defs[`L${i}`] = { anyOf: [next, next, next] };
  }
  defs[`L${levels}`] = { type: "string" };
  return { type: "object", properties: { x: { $ref: "#/$defs/L0" } }, $defs: defs };
}

describe("unfoldedSizeOver", () => {
  it("counts a shared definition each time it is referred to", () => {
    expect(unfoldedSizeOver(fanOut(6), 3 ** 6)).toBe(true);
    expect(unfoldedSizeOver(fanOut(6), 3 ** 8)).toBe(false);
  });

  it("takes a schema as generated from typed models, optional ones included", () => {
    const item = {
      type: "object",
      properties: { name: { type: "string" }, tags: { type: "array", items: { type: "string" } } },
    };
    const schema = {
      type: "object",
      properties: {
        first: { $ref: "#/$defs/Item" },
        rest: { type: "array", items: { $ref: "#/$defs/Item" } },
        maybe: { anyOf: [{ $ref: "#/$defs/Item" }, { type: "null" }] },
        // A parameter named "$ref", and data that is no schema, count as what they are.
        odd: { type: "object", properties: { $ref: { type: "string" } } },
        kind: { enum: Array.from({ length: 5_000 }, (_, i) => ({ i })) },
      },
      $defs: { Item: item },
    };
    expect(unfoldedSizeOver(schema, 30)).toBe(false);
  });

  it("cannot vouch for a schema that refers to itself, or past what it can resolve", () => {
    const tree = {
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#" } } },
    };
    expect(unfoldedSizeOver(tree, OUTPUT_SCHEMA_UNFOLDED_MAX)).toBe(true);
    expect(unfoldedSizeOver({ $ref: "other.json#/a" }, OUTPUT_SCHEMA_UNFOLDED_MAX)).toBe(true);
    expect(unfoldedSizeOver({ $dynamicRef: "#node" }, OUTPUT_SCHEMA_UNFOLDED_MAX)).toBe(true);
    // A chain of references deeper than the stack.
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) defs[`D${i}`] = { $ref: `#/$defs/D${i + 1}` };
    expect(unfoldedSizeOver({ $ref: "#/$defs/D0", $defs: defs }, 10 ** 9)).toBe(true);
  });
});

describe("a server's output schema that would take exponential time to check", () => {
  it("is not compiled: the tool's results come back unchecked at once, with a warning", () => {
    const catalog = buildCatalog(
      [
        {
          server: "evil",
          tools: [{ name: "get", inputSchema: { type: "object" }, outputSchema: fanOut(20) }],
          allow: null,
          private: false,
        },
      ],
      { prefixWithServer: true },
    );
    const tool = catalog.byPyName.get("evil__get")!;
    expect(tool.validateOutput).toBeNull();
    expect(catalog.warnings).toEqual([
      `The results of tool "get" of server "evil" are not checked: its output schema, its $refs ` +
        `unfolded, holds more than ${OUTPUT_SCHEMA_UNFOLDED_MAX} subschemas or refers to itself.`,
    ]);
    // With the schema compiled, this value (failing at the bottom of every branch) took 3^20 steps.
    expect(resultForm(tool, { content: [], structuredContent: { x: 1 } })).toEqual({
      form: "structured",
    });
  });
});

describe("a server's input schema that would take exponential time to check", () => {
  it("leaves the tool out, naming why: no call can hold the host's thread", () => {
    const catalog = buildCatalog(
      [
        {
          server: "evil",
          tools: [
            { name: "put", inputSchema: fanOut(20) },
            { name: "tree", inputSchema: { type: "object", properties: { up: { $ref: "#" } } } },
            {
              name: "fine",
              inputSchema: { type: "object", properties: { a: { type: "string" } } },
            },
          ],
          allow: null,
          private: false,
        },
      ],
      { prefixWithServer: true },
    );
    // Admitted, a call from the code with {"x": 1} (failing at the bottom of every branch)
    // took the bridge's validator 3^20 steps.
    expect(catalog.byPyName.has("evil__put")).toBe(false);
    expect(catalog.byPyName.has("evil__tree")).toBe(false);
    expect(catalog.byPyName.has("evil__fine")).toBe(true);
    const reasons = catalog.leftOut.map((t) => `${t.tool}: ${t.reason.text}`).join("\n");
    expect(reasons).toContain(`holds more than ${INPUT_SCHEMA_UNFOLDED_MAX} subschemas`);
    expect(reasons).toContain("could not be checked in bounded time");
  });
});
