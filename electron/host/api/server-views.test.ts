import { describe, expect, it } from "vitest";
import { buildCatalog, WARNING_NAME_MAX_CHARS } from "../core/catalog/catalog-builder.js";
import type { DiscoveredTool } from "../core/catalog/catalog-types.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";
import { toolViews } from "./server-views.js";
import { SCHEMA_MAX_DEPTH } from "../core/catalog/schema-compile.js";

function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < levels; i++) schema = { type: "array", items: schema };
  return { type: "object", properties: { x: schema } };
}

describe("tool views", () => {
  // Longer than the names the catalog's prose warnings keep: the reason is still found.
  const long = `search_${"x".repeat(WARNING_NAME_MAX_CHARS + 20)}`;
  const listed: DiscoveredTool[] = [
    { name: "ok", inputSchema: { type: "object" } },
    { name: long, inputSchema: deepSchema(SCHEMA_MAX_DEPTH + 5) },
    { name: "off", inputSchema: { type: "object" } },
  ];
  const entry: ServerEntry = {
    command: "x",
    args: [],
    env: {},
    secretEnv: [],
    allow: ["ok", long],
    private: false,
  };
  const catalog = buildCatalog(
    [{ server: "s", tools: listed, allow: entry.allow, private: entry.private }],
    { prefixWithServer: true },
  );

  it("gives each left-out tool its reason as a code and a line of text", () => {
    const views = toolViews("s", entry, listed, catalog);
    expect(views.map((v) => [v.name, v.pyName, v.leftOut?.code ?? null])).toEqual([
      ["ok", "s__ok", null],
      [long, null, "schema_unusable"],
      ["off", null, "not_allowed"],
    ]);
    expect(views[1]?.leftOut?.text).toMatch(/nested deeper than/);
  });

  it("says not_in_catalog for a tool the catalog does not hold for another reason", () => {
    const empty = buildCatalog([], { prefixWithServer: true });
    expect(toolViews("s", entry, listed, empty)[0]?.leftOut).toEqual({
      code: "not_in_catalog",
      text: "not in the catalog",
    });
  });

  it("lists nothing for a server that is not running or not configured", () => {
    expect(toolViews("s", entry, undefined, catalog)).toEqual([]);
    expect(toolViews("s", undefined, listed, catalog)).toEqual([]);
  });
});
