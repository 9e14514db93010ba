import { describe, expect, it } from "vitest";
import { API_LIMITS, PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { toolNameProblem } from "./tool-name-check.js";

describe("toolNameProblem: the one measure of a tool name, for the pins and the catalog", () => {
  it("takes ordinary names, non-ASCII letters included, up to the cap in UTF-16 units", () => {
    for (const name of ["send", "get-weather", "search.issues", "créer", "検索", "a b"])
      expect(toolNameProblem(name)).toBeNull();
    expect(toolNameProblem("x".repeat(PROTOCOL_LIMITS.toolNameMaxChars))).toBeNull();
    expect(toolNameProblem("x".repeat(PROTOCOL_LIMITS.toolNameMaxChars + 1))?.code).toBe(
      "name_too_long",
    );
    // Measured in UTF-16 units, as JavaScript and the API count: 513 astral letters are 1,026.
    expect(toolNameProblem("\u{1D4D0}".repeat(513))?.code).toBe("name_too_long");
  });

  it("refuses invisible, bidi and control characters, naming the first one", () => {
    const tags = `send${String.fromCodePoint(0xe0041).repeat(520)}`;
    expect(toolNameProblem(tags)).toEqual({
      code: "name_hidden_chars",
      text: "its name contains invisible, control or text-direction characters (U+E0041), so it would not read as what it is",
    });
    expect(toolNameProblem("send\u200B")?.text).toContain("(U+200B)");
    expect(toolNameProblem("report\u202Etxt.exe")?.text).toContain("(U+202E)");
    expect(toolNameProblem("a\u2066b")?.code).toBe("name_hidden_chars");
    expect(toolNameProblem("a\nb")?.code).toBe("name_hidden_chars");
    expect(toolNameProblem("send\u00A0")?.code).toBe("name_hidden_chars");
  });
});

describe("the API takes every name the pins take", () => {
  it("so a held tool can always be reviewed", () => {
    expect(API_LIMITS.toolNameMaxChars).toBe(PROTOCOL_LIMITS.toolNameMaxChars);
  });
});
