import { describe, expect, it } from "vitest";
import { buildCatalog } from "./catalog-builder.js";
import { isDeprecated, saysDeprecated } from "./deprecated.js";
import { sandboxTools } from "./sandbox-tools.js";
import { toolsJson } from "../ports/tools-json.js";

const schema = { type: "object" };

describe("deprecated tools", () => {
  it("is the word, in any case, not a part of another word", () => {
    expect(saysDeprecated("DEPRECATED: Use read_text_file instead.")).toBe(true);
    expect(saysDeprecated("Read File (Deprecated)")).toBe(true);
    expect(saysDeprecated("deprecated")).toBe(true);
    expect(saysDeprecated("Lists non-deprecated APIs and undeprecated ones.")).toBe(false);
    expect(saysDeprecated("Reads a file.")).toBe(false);
  });

  it("is what the description, the title or an annotation says", () => {
    expect(isDeprecated({ name: "a", inputSchema: schema, description: "Deprecated." })).toBe(true);
    expect(isDeprecated({ name: "a", inputSchema: schema, title: "A (deprecated)" })).toBe(true);
    expect(
      isDeprecated({ name: "a", inputSchema: schema, annotations: { title: "Old; deprecated" } }),
    ).toBe(true);
    expect(
      isDeprecated({ name: "a", inputSchema: schema, annotations: { deprecated: true } }),
    ).toBe(true);
    expect(isDeprecated({ name: "a", inputSchema: schema, description: "Current." })).toBe(false);
  });

  it("goes to the sandbox as `deprecated: true` on that tool only", () => {
    const catalog = buildCatalog(
      [
        {
          server: "fs",
          tools: [
            {
              name: "read_file",
              description: "DEPRECATED: Use read_text_file.",
              inputSchema: schema,
            },
            { name: "read_text_file", description: "Reads text.", inputSchema: schema },
          ],
          allow: null,
          private: false,
        },
      ],
      { prefixWithServer: true },
    );
    const json = JSON.parse(toolsJson(sandboxTools(catalog.tools))) as Record<string, unknown>[];
    expect(json.map((t) => [t.name, t.deprecated])).toEqual([
      ["fs__read_file", true],
      ["fs__read_text_file", undefined],
    ]);
  });
});
