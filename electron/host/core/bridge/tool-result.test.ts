import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorText, resultToString, RESULT_LABEL_MAX_CHARS } from "./tool-result.js";

describe("resultToString", () => {
  it("prefers structured content, as JSON", () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: '{"a": 1}' }],
      structuredContent: { a: 1, b: ["x"] },
    };
    expect(resultToString(result)).toBe('{"a":1,"b":["x"]}');
  });

  it("joins text parts with newlines", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
    };
    expect(resultToString(result)).toBe("one\ntwo");
  });

  it("describes non-text parts briefly instead of passing their data", () => {
    const data = Buffer.alloc(1234, 7).toString("base64");
    const result: CallToolResult = {
      content: [
        { type: "image", mimeType: "image/png", data },
        { type: "audio", mimeType: "audio/wav", data: "AAAA" },
        { type: "resource_link", uri: "file:///a.txt", name: "a" },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AAA=", mimeType: "x/y" } },
        { type: "resource", resource: { uri: "file:///c.txt", text: "embedded text" } },
      ],
    };
    expect(resultToString(result).split("\n")).toEqual([
      "[image image/png, 1234 bytes]",
      "[audio audio/wav, 3 bytes]",
      "[resource link file:///a.txt]",
      "[resource file:///b.bin, x/y, 2 bytes]",
      "embedded text",
    ]);
  });

  it("copes with a missing or malformed content array", () => {
    expect(resultToString({} as CallToolResult)).toBe("");
    const odd = { content: [null, { type: "hologram" }, { type: "text" }] } as unknown;
    expect(resultToString(odd as CallToolResult)).toBe(
      "[unrecognised content]\n[hologram content]\n",
    );
  });

  it("keeps server labels on one line and short", () => {
    const result: CallToolResult = {
      content: [{ type: "image", mimeType: `a\nb${"m".repeat(500)}`, data: "" }],
    };
    const out = resultToString(result);
    expect(out).not.toContain("\n");
    // The label (cut, plus its ellipsis) inside `[image ..., 0 bytes]`.
    expect(out).toHaveLength(RESULT_LABEL_MAX_CHARS + 1 + "[image , 0 bytes]".length);
  });
});

describe("errorText", () => {
  it("uses the text parts, else the structured content", () => {
    expect(errorText({ isError: true, content: [{ type: "text", text: "bad id" }] })).toBe(
      "bad id",
    );
    expect(errorText({ isError: true, content: [], structuredContent: { code: 4 } })).toBe(
      '{"code":4}',
    );
    expect(errorText({ isError: true, content: [] })).toBe("");
  });
});
