import { describe, expect, it } from "vitest";
import { sameList } from "./same-list.js";

describe("sameList", () => {
  it("compares items in order, and null only with null", () => {
    expect(sameList(["a", "b"], ["a", "b"])).toBe(true);
    expect(sameList(["a", "b"], ["b", "a"])).toBe(false);
    expect(sameList(["a"], ["a", "b"])).toBe(false);
    expect(sameList([], [])).toBe(true);
    expect(sameList(null, null)).toBe(true);
    expect(sameList(null, [])).toBe(false);
  });
});
