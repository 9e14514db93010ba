import { describe, expect, it } from "vitest";
import { runnerLimits, startLine, RESULTS_UNREAD_MAX_BYTES } from "./run-session.js";
import { freezeTools, toolsJson } from "../../core/ports/tools-json.js";

const TOOLS = freezeTools([
  { name: "a", stub: "async def a() -> str: ...", description: "Does a.", schema: "{}" },
]);
// Code that spells out what the line's own tools field looks like must not confuse the splice.
const CODE = 'print(\'{"type":"start","tools":"staged"}\')\n"\\u2028"';

describe("startLine", () => {
  it("carries the run's own tools when nothing, or something else, was staged", () => {
    for (const staged of [null, toolsJson([{ name: "b", stub: "" }])]) {
      const line = startLine({ code: CODE, tools: TOOLS, stdin: "in" }, staged);
      expect(line.endsWith("\n") && line.indexOf("\n") === line.length - 1).toBe(true);
      expect(JSON.parse(line)).toEqual({
        type: "start",
        tools: [
          { name: "a", stub: "async def a() -> str: ...", description: "Does a.", schema: "{}" },
        ],
        code: CODE,
        stdin: "in",
        down: [],
        held: [],
        limits: runnerLimits(),
      });
    }
  });

  it('says "staged" only when the tools serialize to exactly the staged text', () => {
    const staged = toolsJson(TOOLS);
    const line = startLine({ code: CODE, tools: TOOLS }, staged);
    expect(JSON.parse(line)).toMatchObject({ type: "start", tools: "staged", code: CODE });
    // A copy made apart is compared by its text: staged too.
    const copy = TOOLS.map((t) => ({ ...t }));
    expect(JSON.parse(startLine({ code: CODE, tools: copy }, staged))).toMatchObject({
      tools: "staged",
    });
    // One character off is not.
    const off = [{ ...TOOLS[0]!, description: "Does a!" }];
    expect(JSON.parse(startLine({ code: CODE, tools: off }, staged))).toMatchObject({
      tools: [{ description: "Does a!" }],
    });
  });

  it("sends an empty list, never the staged catalog, for a run without tools", () => {
    const line = startLine({ code: "x" }, toolsJson(TOOLS));
    expect(JSON.parse(line)).toMatchObject({ tools: [] });
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ RESULTS_UNREAD_MAX_BYTES }).toEqual({
      RESULTS_UNREAD_MAX_BYTES: 64 * 1024 * 1024,
    });
  });
});
