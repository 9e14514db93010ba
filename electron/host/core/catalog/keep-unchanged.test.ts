import { describe, expect, it } from "vitest";
import { buildCatalog, CatalogError } from "./catalog-builder.js";
import type { DiscoveredTool, ServerTools } from "./catalog-types.js";
import { keepUnchanged } from "./keep-unchanged.js";

function tool(name: string, hash: string): DiscoveredTool {
  return { name, description: `The ${name} tool.`, inputSchema: { type: "object" }, hash };
}

function server(name: string, tools: DiscoveredTool[], extra: Partial<ServerTools> = {}) {
  const pinned = new Map(tools.map((t) => [t.name, t.hash ?? ""]));
  return { server: name, tools, allow: null, private: false, pinned, ...extra } as ServerTools;
}

describe("keepUnchanged: what a failed live rebuild keeps", () => {
  const first = [
    server("a", [tool("gone", "g1"), tool("stay", "s1")], { allow: ["gone", "stay"] }),
    server("b", [tool("echo", "e1"), tool("keep", "k1")]),
  ];
  const last = buildCatalog(first, { prefixWithServer: true });

  it("takes out a tool held for review meanwhile, with the held message, and keeps the rest", () => {
    // a drops a tool its allow list names (the rebuild fails); b's echo changed and is held.
    const now = [
      server("a", [tool("stay", "s1")], { allow: ["gone", "stay"] }),
      server("b", [tool("echo", "e2"), tool("keep", "k1")], {
        held: new Set(["echo"]),
        pinned: new Map([["keep", "k1"]]),
      }),
    ];
    expect(() => buildCatalog(now, { prefixWithServer: true })).toThrow(CatalogError);
    const kept = keepUnchanged(last, now);
    expect(kept.tools.map((t) => t.pyName).sort()).toEqual(["a__stay", "b__keep"]);
    expect(kept.byPyName.has("b__echo")).toBe(false);
    expect(kept.held?.get("b__echo")).toContain("held and cannot be called");
    expect(kept.heldMethods?.get("b__echo")).toEqual({ namespace: "b", method: "echo" });
  });

  it("takes out a tool listed with another definition, or no longer pinned, or of a server gone", () => {
    const now = [
      server("a", [tool("gone", "g1"), tool("stay", "s2")], {
        pinned: new Map([["gone", "g1"]]),
      }),
      server("b", [tool("echo", "e1"), tool("keep", "k1")], { pinned: new Map([["keep", "k1"]]) }),
    ];
    expect(keepUnchanged(last, now).tools.map((t) => t.pyName)).toEqual(["a__gone", "b__keep"]);
    expect(keepUnchanged(last, [now[0]!]).tools.map((t) => t.pyName)).toEqual(["a__gone"]);
  });

  it("takes out a tool now marked private, or off its server's allow list", () => {
    const now = [
      server("a", [tool("stay", "s1")], { allow: ["gone", "stay"] }),
      server("b", [tool("echo", "e1"), tool("keep", "k1")], {
        private: ["echo"],
        allow: ["echo"],
      }),
    ];
    expect(keepUnchanged(last, now).tools.map((t) => t.pyName)).toEqual(["a__stay"]);
  });

  it("is the last catalog itself when nothing changed", () => {
    expect(keepUnchanged(last, first)).toBe(last);
  });
});
