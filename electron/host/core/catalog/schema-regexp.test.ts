import { describe, expect, it } from "vitest";
import {
  UnsupportedPatternError,
  compileLinear,
  linearRegExpEngine,
  unsupportedPatternIn,
  PATTERN_PROGRAM_MAX_SIZE,
  PATTERN_MAX_CHARS,
} from "./schema-regexp.js";

describe("schema patterns on a linear-time engine", () => {
  it("matches as JSON Schema means: a search, not a whole-string match", () => {
    expect(compileLinear("abc").test("xxabcxx")).toBe(true);
    expect(compileLinear("^abc$").test("xxabcxx")).toBe(false);
    expect(compileLinear("^\\d{4}-\\d{2}-\\d{2}$").test("2026-12-01")).toBe(true);
    expect(compileLinear("^[\\p{L}]+$").test("café")).toBe(true);
    expect(compileLinear("^\\u00e9$").test("é")).toBe(true);
    expect(compileLinear("^(?<word>\\w+)$").test("hello")).toBe(true);
    // Captureless lookbehinds are linear in re2js, so they are kept.
    expect(compileLinear("(?<!a)b").test("ab")).toBe(false);
    expect(compileLinear("(?<=a)b").test("ab")).toBe(true);
  });

  it("answers the catastrophic pattern at once", () => {
    const evil = compileLinear("^(\\w+\\s?)*$");
    expect(evil.test("a".repeat(34) + "!")).toBe(false);
    expect(evil.test("a".repeat(10_000) + "!")).toBe(false);
    expect(evil.test("two words")).toBe(true);
  });

  it("refuses what needs backtracking, naming the pattern and why", () => {
    const why = (pattern: string): string => {
      try {
        compileLinear(pattern);
      } catch (error) {
        expect(error).toBeInstanceOf(UnsupportedPatternError);
        return (error as Error).message;
      }
      throw new Error(`${pattern} compiled`);
    };
    expect(why("(?=a)b")).toBe(
      'pattern "(?=a)b" cannot run on a linear-time engine: it uses a lookahead',
    );
    expect(why("^a(?!b)")).toContain("it uses a lookahead");
    expect(why("(a)\\1")).toContain("it uses a backreference");
  });

  it("refuses a pattern too long or too big to match cheaply", () => {
    expect(() => compileLinear("a".repeat(PATTERN_MAX_CHARS))).not.toThrow();
    expect(() => compileLinear("a".repeat(PATTERN_MAX_CHARS + 1))).toThrow(
      `it is longer than ${PATTERN_MAX_CHARS} characters`,
    );
    expect(() => compileLinear("\\pL{0,1000}".repeat(3))).toThrow(
      `over the limit of ${PATTERN_PROGRAM_MAX_SIZE}`,
    );
    // A long-but-ordinary pattern is well within it.
    expect(() =>
      compileLinear("^[\\w.+-]{1,255}@[\\w-]{1,255}(\\.[\\w-]{1,63}){1,10}$"),
    ).not.toThrow();
  });

  it("is what ajv's code.regExp option gets", () => {
    expect(linearRegExpEngine("^a", "u").test("abc")).toBe(true);
  });

  it("gives each pattern its own key, so ajv never shares one matcher between two", () => {
    // ajv keys compiled patterns by `toString()`.
    const key = (pattern: string): string => String(compileLinear(pattern));
    expect(key("^a")).not.toBe(key("^b"));
  });

  it("finds the refusal through an error's causes", () => {
    const refusal = new UnsupportedPatternError("(?=a)", "it uses a lookahead");
    expect(unsupportedPatternIn(new Error("wrapped", { cause: refusal }))).toBe(refusal);
    expect(unsupportedPatternIn(new Error("other"))).toBeUndefined();
  });
});
