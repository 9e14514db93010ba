import { describe, expect, it } from "vitest";
import { makeTool } from "../../../../test-support/bridge-fixture.js";
import { toolsJson } from "../ports/tools-json.js";
import type { Catalog } from "./catalog-types.js";
import { catalogSandboxTools, sandboxTools, SCHEMAS_SHOWN_TOTAL_BYTES } from "./sandbox-tools.js";

describe("sandboxTools", () => {
  it("sends each tool's name, stub, description and schema", () => {
    const tool = { ...makeTool({ pyName: "a" }), stub: "async def a...", description: "Does a." };
    expect(sandboxTools([tool])).toEqual([
      {
        name: "a",
        stub: "async def a...",
        description: "Does a.",
        schema: tool.shownSchema,
        namespace: "main",
        method: "a",
      },
    ]);
    // A tool without a method (another took its name in the namespace) has no place there.
    expect(sandboxTools([{ ...tool, method: null }])[0]).not.toHaveProperty("method");
  });

  it("sends the keywords that stand for other names for a method whose schema stays behind", () => {
    const schema = {
      type: "object",
      properties: { from: {}, class: {}, class_: {}, to: {}, "a b": {} },
    };
    const tool = { ...makeTool({ pyName: "a", schema }), shownSchema: null };
    // `from_` passes "from"; `class_` is a parameter of its own, so "class" has no keyword.
    expect(sandboxTools([tool])[0]?.keywords).toEqual({ from_: "from" });
    expect(toolsJson(sandboxTools([tool]))).toContain('"kw":{"from_":"from"}');
    // With its schema the runner reads them itself; a tool without a method has no keywords.
    expect(sandboxTools([makeTool({ pyName: "a", schema })])[0]).not.toHaveProperty("keywords");
    expect(sandboxTools([{ ...tool, method: null }])[0]).not.toHaveProperty("keywords");
    const plain = { ...makeTool({ pyName: "b", schema: { properties: { to: {} } } }) };
    expect(sandboxTools([{ ...plain, shownSchema: null }])[0]).not.toHaveProperty("keywords");
  });

  it("stops sending schemas once they reach schemasShownTotalBytes, in catalog order", () => {
    const schema = JSON.stringify({ type: "object", description: "x".repeat(10_000) });
    const perTool = Buffer.byteLength(schema);
    const fit = Math.floor(SCHEMAS_SHOWN_TOTAL_BYTES / perTool);
    const tools = Array.from({ length: fit + 5 }, (_, i) => ({
      ...makeTool({ pyName: `t${i}` }),
      shownSchema: schema,
    }));
    const sent = sandboxTools(tools);
    expect(sent.filter((t) => t.schema !== null)).toHaveLength(fit);
    expect(sent.slice(fit).every((t) => t.schema === null && t.stub === "")).toBe(true);
    // A tool whose schema was left out by the catalog (too large) takes nothing from the total.
    const none = { ...makeTool({ pyName: "none" }), shownSchema: null };
    expect(sandboxTools([none, tools[0]!]).map((t) => t.schema)).toEqual([null, schema]);
  });
});

describe("catalogSandboxTools", () => {
  const catalogOf = (description: string): Catalog => ({
    tools: [{ ...makeTool({ pyName: "a" }), description }],
    byPyName: new Map(),
    warnings: [],
    leftOut: [],
  });

  it("is made once per catalog, frozen, and a new catalog gets its own list and text", () => {
    const first = catalogOf("Does a.");
    const tools = catalogSandboxTools(first);
    expect(catalogSandboxTools(first)).toBe(tools);
    expect(Object.isFrozen(tools) && tools.every((t) => Object.isFrozen(t))).toBe(true);
    const next = catalogSandboxTools(catalogOf("Does a, now differently."));
    expect(next).not.toBe(tools);
    expect(toolsJson(next)).not.toBe(toolsJson(tools));
    expect(toolsJson(next)).toContain("Does a, now differently.");
  });
});

describe("toolsJson", () => {
  it("serializes a list that can still change afresh each time (no stale text)", () => {
    const tools = [{ name: "a", stub: "s" }];
    expect(toolsJson(tools)).toBe('[{"name":"a","stub":"s","description":"","schema":null}]');
    tools[0]!.stub = "changed";
    expect(toolsJson(tools)).toContain('"stub":"changed"');
    tools.push({ name: "b", stub: "" });
    expect(toolsJson(tools)).toContain('"name":"b"');
  });

  it("gives a tool's namespace and method as ns and fn (runner-protocol.md)", () => {
    expect(toolsJson([{ name: "shop__add", stub: "s", namespace: "shop", method: "add" }])).toBe(
      '[{"name":"shop__add","stub":"s","description":"","schema":null,"ns":"shop","fn":"add"}]',
    );
  });
});
