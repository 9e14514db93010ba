import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import {
  bounded,
  closeNames,
  errorTypeName,
  failureCode,
  formatSeconds,
  quoteName,
  SUGGEST_MAX_NAME_CHARS,
  CALLED_NAME_MAX_CHARS,
  SUGGESTIONS_MAX,
} from "./messages.js";

describe("messages", () => {
  it("bounded cuts to the limit without splitting a surrogate pair", () => {
    expect(bounded("abc", 5)).toBe("abc");
    expect(bounded("abcdef", 5)).toBe("abcd…");
    const cut = bounded("a\u{1F600}\u{1F600}", 3);
    expect(cut).toBe("a…");
    expect(bounded("x".repeat(10_000))).toHaveLength(BRIDGE_LIMITS.refusalMaxChars);
  });

  it("quoteName escapes and shortens", () => {
    expect(quoteName('a"\n')).toBe('"a\\"\\n"');
    // The cut name, the ellipsis and the two quotes.
    expect(quoteName("n".repeat(1000))).toHaveLength(CALLED_NAME_MAX_CHARS + 3);
  });

  it("closeNames finds typos and missing server prefixes, at most suggestionsMax", () => {
    const names = ["notes__search", "notes__read", "web__fetch", "tracker__find_issue"];
    expect(closeNames("notes__serch", names)[0]).toBe("notes__search");
    expect(closeNames("fetch", names)).toEqual(["web__fetch"]);
    expect(closeNames("zzzzzz", names)).toEqual([]);
    expect(closeNames("x".repeat(SUGGEST_MAX_NAME_CHARS + 1), names)).toEqual([]);
    expect(closeNames("ab", ["ab1", "ab2", "ab3", "ab4"])).toHaveLength(SUGGESTIONS_MAX);
  });

  it("errorTypeName gives only an identifier", () => {
    expect(errorTypeName(new TypeError("x"))).toBe("TypeError");
    expect(errorTypeName(new DOMException("x", "TimeoutError"))).toBe("TimeoutError");
    const named = new Error("x");
    named.name = "has spaces /path";
    expect(errorTypeName(named)).toBe("Error");
    expect(errorTypeName("just a string")).toBe("UnknownError");
    expect(errorTypeName(null)).toBe("UnknownError");
  });

  it("formatSeconds", () => {
    expect(formatSeconds(30_000)).toBe("30 s");
    expect(formatSeconds(50)).toBe("0.05 s");
    expect(formatSeconds(1500)).toBe("1.5 s");
  });
});

describe("failureCode", () => {
  it("gives a host failure's errno code, never its text with the host's paths", () => {
    expect(failureCode("EACCES: permission denied, open '/home/u/audit/a.jsonl'")).toBe("EACCES");
    expect(failureCode("Error: ENOSPC: no space left on device, write")).toBe("ENOSPC");
    expect(failureCode("the disk went away at /home/u")).toBeNull();
    expect(failureCode(`E${"A".repeat(100_000)}x`)).toBeNull();
  });
});
