// The review's line diff: correct on the changes a tool definition goes through, and bounded
// on hostile input (it falls back to both sides whole instead of filling a huge table).
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { describe, expect, it } from "vitest";
import { REVIEW_DIFF_LIMITS } from "../../../shared/limits.ts";
import { lineDiff } from "./line-diff.ts";

/** The diff as "  same", "- removed", "+ added" lines, to read at a glance. */
function shown(diff) {
  expect(diff.kind).toBe("lines");
  const mark = { same: " ", removed: "-", added: "+" };
  return diff.lines.map((l) => `${mark[l.kind]} ${l.text}`);
}

const pretty = (value) => JSON.stringify(value, null, 2);

describe("lineDiff", () => {
  it("shows equal texts as all same, with no table", () => {
    const diff = lineDiff("a\nb", "a\nb");
    expect(shown(diff)).toEqual(["  a", "  b"]);
    expect(diff.cells).toBe(0);
  });

  it("shows a changed description line as removed then added", () => {
    expect(shown(lineDiff("Adds two numbers.", "Adds two numbers. Also email them."))).toEqual([
      "- Adds two numbers.",
      "+ Adds two numbers. Also email them.",
    ]);
  });

  it("shows a parameter a schema gained as added lines between unchanged ones", () => {
    const before = pretty({
      properties: { a: { type: "number" }, b: { type: "number" } },
      type: "object",
    });
    const after = pretty({
      properties: { a: { type: "number" }, b: { type: "number" }, bcc: { type: "string" } },
      type: "object",
    });
    expect(shown(lineDiff(before, after))).toEqual([
      "  {",
      '    "properties": {',
      '      "a": {',
      '        "type": "number"',
      "      },",
      '      "b": {',
      '        "type": "number"',
      // The smallest diff: b's closing brace is matched with bcc's.
      "+     },",
      '+     "bcc": {',
      '+       "type": "string"',
      "      }",
      "    },",
      '    "type": "object"',
      "  }",
    ]);
  });

  it("keeps the common lines of interleaved changes (a longest common subsequence)", () => {
    expect(shown(lineDiff("a\nb\nc\nd\ne", "a\nx\nc\ny\ne"))).toEqual([
      "  a",
      "- b",
      "+ x",
      "  c",
      "- d",
      "+ y",
      "  e",
    ]);
    expect(shown(lineDiff("", "one\ntwo"))).toEqual(["- ", "+ one", "+ two"]);
    expect(shown(lineDiff("x\ny", "y\nx"))).toEqual(["- x", "  y", "+ x"]);
  });

  it("rebuilds both sides from its lines", () => {
    const before = ["k", "a", "b", "a", "c", "k", "z"].join("\n");
    const after = ["a", "k", "b", "c", "a", "k", "y", "z"].join("\n");
    const diff = lineDiff(before, after);
    expect(diff.kind).toBe("lines");
    const side = (kinds) =>
      diff.lines
        .filter((l) => kinds.includes(l.kind))
        .map((l) => l.text)
        .join("\n");
    expect(side(["same", "removed"])).toBe(before);
    expect(side(["same", "added"])).toBe(after);
    // Common subsequence of length 5 (a b c k z): 3 removed, 3 added.
    expect(diff.lines.filter((l) => l.kind === "same")).toHaveLength(5);
  });

  it("compares long lines as wholes, not character by character", () => {
    const long = "x".repeat(100_000);
    expect(shown(lineDiff(`${long}1\nend`, `${long}2\nend`)).map((l) => l.slice(-1))).toEqual([
      "1",
      "2",
      "d",
    ]);
  });
});

describe("lineDiff on hostile input (REVIEW_DIFF_LIMITS)", () => {
  const distinct = (n, tag) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join("\n");

  it("fills at most cellsMax cells, and shows both sides whole past it", () => {
    const limits = { linesMax: 1_000, cellsMax: 10_000 };
    // 99 × 99 changed lines: (99 + 1) × (99 + 1) = 10 000 cells, just at the cap.
    const atCap = lineDiff(distinct(99, "a"), distinct(99, "b"), limits);
    expect(atCap.kind).toBe("lines");
    expect(atCap.cells).toBe(10_000);
    const over = lineDiff(distinct(100, "a"), distinct(100, "b"), limits);
    expect(over).toEqual({
      kind: "whole",
      before: distinct(100, "a"),
      after: distinct(100, "b"),
      note: "Too many changed lines to compare (100 against 100): both versions are shown whole.",
    });
  });

  it("counts only the changed middle: a long text with one changed line still diffs", () => {
    const limits = { linesMax: 1_000, cellsMax: 100 };
    const same = distinct(900, "s");
    const diff = lineDiff(`${same}\nold\n${same}`, `${same}\nnew\n${same}`, {
      ...limits,
      linesMax: 2_000,
    });
    expect(diff.kind).toBe("lines");
    expect(diff.cells).toBe(4);
    expect(diff.lines.filter((l) => l.kind !== "same")).toEqual([
      { kind: "removed", text: "old" },
      { kind: "added", text: "new" },
    ]);
  });

  it("does not compare a side longer than linesMax", () => {
    const limits = { linesMax: 50, cellsMax: 1_000_000 };
    const diff = lineDiff(distinct(51, "a"), "b", limits);
    expect(diff).toMatchObject({
      kind: "whole",
      note: "Too long to compare line by line (51 lines; the comparison stops at 50): both versions are shown whole.",
    });
  });

  it("uses the named limits by default: a hostile pair of real size falls back whole", () => {
    const n = Math.floor(Math.sqrt(REVIEW_DIFF_LIMITS.cellsMax)) + 1;
    expect(n).toBeLessThanOrEqual(REVIEW_DIFF_LIMITS.linesMax);
    expect(lineDiff(distinct(n, "a"), distinct(n, "b")).kind).toBe("whole");
    expect(lineDiff(distinct(REVIEW_DIFF_LIMITS.linesMax + 1, "a"), "").kind).toBe("whole");
  });
});
