import { describe, expect, it } from "vitest";
import { callInput } from "../test-support/audit-fixtures.js";
import { TEXT_SEPARATOR, entryText, textNeedle } from "./audit-filter.js";

describe("entryText", () => {
  it("holds the entry's texts lowercased, each closed by the separator, hashes and times aside", () => {
    const entry = {
      seq: 7,
      ts: "2026-02-01T00:00:00.000Z",
      prev: "b".repeat(64),
      ...callInput(1, { args: '{"City":"Zürich"}', reason: `a${TEXT_SEPARATOR}b` }),
    };
    const text = entryText(entry);
    expect(text.split(TEXT_SEPARATOR)).toEqual([
      "call",
      "run-0",
      "cursor",
      "files",
      "files__tool_1",
      "tool_1",
      "allowed",
      "a b",
      '{"city":"zürich"}',
      "",
    ]);
    expect(text).not.toContain("bbbb");
    expect(text).not.toContain("aaaa");
    expect(text).not.toContain("2026");
  });

  it("takes any parsed line, not only a valid entry", () => {
    expect(entryText({ kind: "x", list: ["A", 1, { b: "C" }], n: null })).toBe(
      `x${TEXT_SEPARATOR}a${TEXT_SEPARATOR}c${TEXT_SEPARATOR}`,
    );
    expect(entryText(null)).toBe("");
  });

  it("lowercases the needle; one holding the separator can match nothing", () => {
    expect(textNeedle("Zürich")).toBe("zürich");
    expect(textNeedle(`a${TEXT_SEPARATOR}b`)).toBeNull();
  });
});
