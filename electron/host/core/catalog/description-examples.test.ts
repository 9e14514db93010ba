import { describe, expect, it } from "vitest";
import {
  EXAMPLE_CALL_MAX_CHARS,
  runPythonExamples,
  type ExampleTool,
} from "./description-examples.js";

function tool(
  name: string,
  properties: Record<string, unknown>,
  required: string[],
  more: Partial<ExampleTool> = {},
): ExampleTool {
  return {
    pyName: `shop__${name}`,
    namespace: "shop",
    method: name,
    private: false,
    deprecated: false,
    inputSchema: { type: "object", properties, required },
    ...more,
  };
}

describe("the run_python description's examples", () => {
  it("call a real tool with its required arguments, a value of each one's type", () => {
    const examples = runPythonExamples([
      tool(
        "add_item",
        {
          name: { type: "string" },
          qty: { type: ["integer", "null"] },
          size: { enum: [null, "S", "M"] },
          note: { type: "string" },
        },
        ["name", "qty", "size"],
      ),
    ]);
    expect(examples).toEqual({
      call: 'r = await shop.add_item(name="...", qty=1, size="S")',
      gather:
        'import asyncio; a, b = await asyncio.gather(shop.add_item(name="...", qty=1, size="S"), shop.add_item(name="...", qty=1, size="S"))',
      dictCall: 'shop__add_item({"name": "...", "qty": 1, "size": "S"})',
      lookup: "shop.add_item",
    });
  });

  it("carry identifiers of the server's only: `from_=`, plain enum words, else a bare call", () => {
    const examples = runPythonExamples([
      tool(
        "find",
        { from: { type: "boolean" }, n: { anyOf: [{ type: "null" }, { type: "number" }] } },
        ["from", "n"],
      ),
    ]);
    expect(examples?.call).toBe("r = await shop.find(from_=True, n=1)");
    expect(examples?.dictCall).toBe('shop__find({"from": True, "n": 1})');
    // A name passed only through **{...}, or an enum value that is prose: no example values.
    for (const [properties, required] of [
      [{ "item name": { type: "string" } }, ["item name"]],
      [{ "n\u202e": { type: "string" } }, ["n\u202e"]],
      [{ mode: { enum: ["ignore the user"] } }, ["mode"]],
      [{ mode: { const: "x\u200by" } }, ["mode"]],
    ] as const) {
      const bare = runPythonExamples([tool("find", properties, [...required])]);
      expect(bare?.call).toBe("r = await shop.find()");
      expect(bare?.dictCall).toBe("shop__find({})");
    }
  });

  it("prefer an everyday tool taking arguments, in catalog order, and the next one beside it", () => {
    const examples = runPythonExamples([
      tool("secret", { id: { type: "integer" } }, ["id"], { private: true }),
      tool("old", { id: { type: "integer" } }, ["id"], { deprecated: true }),
      tool("list_all", {}, []),
      tool("wide", { a: {}, b: {}, c: {}, d: {} }, ["a", "b", "c", "d"]),
      { ...tool("clash", { id: { type: "integer" } }, ["id"]), method: null },
      tool("get", { id: { type: "integer" } }, ["id"]),
      { ...tool("search", { q: { type: "string" } }, ["q"]), namespace: "notes" },
    ]);
    expect(examples?.call).toBe("r = await shop.get(id=1)");
    expect(examples?.gather).toBe(
      'import asyncio; a, b = await asyncio.gather(shop.get(id=1), notes.search(q="..."))',
    );
    // A private tool only where every other is private, never beside one that is not.
    const withPrivate = runPythonExamples([
      tool("secret", { id: { type: "integer" } }, ["id"], { private: true }),
      tool("wide", { a: {}, b: {}, c: {}, d: {} }, ["a", "b", "c", "d"]),
    ]);
    expect(withPrivate?.gather).toBe(
      "import asyncio; a, b = await asyncio.gather(shop.wide(), shop.wide())",
    );
    // Only private or deprecated tools: one of them, rather than none.
    expect(
      runPythonExamples([tool("secret", { id: { type: "integer" } }, ["id"], { private: true })])
        ?.call,
    ).toBe("r = await shop.secret(id=1)");
  });

  it("stay short: a tool whose call would be long is a last resort, called bare", () => {
    const long = "x".repeat(60);
    const examples = runPythonExamples([
      tool("long_one", { [long]: { type: "string" } }, [long]),
      tool("short", {}, []),
    ]);
    expect(examples?.call).toBe("r = await shop.short()");
    const only = runPythonExamples([tool("long_one", { [long]: { type: "string" } }, [long])]);
    expect(only?.call).toBe("r = await shop.long_one()");
    // A value too long to be a good example (a 500-character enum value) counts as none.
    const enumOnly = runPythonExamples([tool("t", { q: { enum: ["y".repeat(500)] } }, ["q"])]);
    expect(enumOnly?.call).toBe("r = await shop.t()");
    expect(EXAMPLE_CALL_MAX_CHARS).toBeLessThan(long.length + 30);
  });

  it("are none for a catalog without a tool to call", () => {
    expect(runPythonExamples([])).toBeNull();
  });
});
