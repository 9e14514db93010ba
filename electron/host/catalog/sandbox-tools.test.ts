import { describe, expect, it } from "vitest";
import { CATALOG_LIMITS } from "../../../shared/limits.js";
import { makeTool } from "../../../test-support/bridge-fixture.js";
import { sandboxTools } from "./sandbox-tools.js";

describe("sandboxTools", () => {
  it("sends each tool's name, stub, description and schema", () => {
    const tool = { ...makeTool({ pyName: "a" }), stub: "async def a...", description: "Does a." };
    expect(sandboxTools([tool])).toEqual([
      { name: "a", stub: "async def a...", description: "Does a.", schema: tool.shownSchema },
    ]);
  });

  it("stops sending schemas once they reach schemasShownTotalBytes, in catalog order", () => {
    const schema = JSON.stringify({ type: "object", description: "x".repeat(10_000) });
    const perTool = Buffer.byteLength(schema);
    const fit = Math.floor(CATALOG_LIMITS.schemasShownTotalBytes / perTool);
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
