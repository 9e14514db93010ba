// What the review of a held tool compares: its description apart, the rest as canonical JSON.
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { describe, expect, it } from "vitest";
import { definitionTexts, prettyJson } from "./tool-definition-text.ts";

describe("definitionTexts", () => {
  it("splits the description from the rest, keys sorted at every level", () => {
    const texts = definitionTexts({
      name: "add",
      inputSchema: { type: "object", properties: { b: {}, a: {} } },
      description: "Adds.\nTwo numbers.",
    });
    expect(texts.description).toBe("Adds.\nTwo numbers.");
    expect(texts.schema).toBe(
      [
        "{",
        '  "inputSchema": {',
        '    "properties": {',
        '      "a": {},',
        '      "b": {}',
        "    },",
        '    "type": "object"',
        "  },",
        '  "name": "add"',
        "}",
      ].join("\n"),
    );
  });

  it("gives empty texts for an absent side, and JSON for a description that is not text", () => {
    expect(definitionTexts(null)).toEqual({ description: "", schema: "" });
    expect(definitionTexts({ name: "x" }).description).toBe("");
    expect(definitionTexts({ name: "x", description: { evil: 1 } }).description).toBe(
      '{\n  "evil": 1\n}',
    );
  });

  it("shows hidden characters escaped, so a change made of them shows as one", () => {
    const texts = definitionTexts({
      name: "send\u{E0041}",
      description: "Send mail.\u{E0041}\u{E0042}\nTwo lines.\u202E",
    });
    expect(texts.description).toBe("Send mail.\\u{E0041}\\u{E0042}\nTwo lines.\\u{202E}");
    expect(texts.schema).toContain('"name": "send\\u{E0041}"');
  });

  it("names a definition nested too deep for the stack instead of throwing", () => {
    let deep = {};
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    expect(prettyJson(deep)).toBe("(nested too deeply to show)");
  });
});
