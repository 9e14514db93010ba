import type { RegExpEngine, RegExpLike } from "ajv/dist/types/index.js";
import { RE2JS } from "re2js";
import { withJsSemantics } from "./regexp-js-semantics.js";

/** A longer `pattern` leaves its tool out: compiling it could take the host seconds. */
export const PATTERN_MAX_CHARS = 1_000;

/**
 * A pattern whose compiled RE2 program is larger leaves its tool out: matching time is the
 * text's length times this, at worst (about 0.2 s on the longest argument string).
 */
export const PATTERN_PROGRAM_MAX_SIZE = 5_000;

/** A pattern quoted in the reason its tool was left out is cut to this. */
export const PATTERN_SHOWN_MAX_CHARS = 80;

// A tool's schema comes from its server, the strings it is checked against from the sandbox.
// JavaScript's RegExp backtracks: `^(\w+\s?)*$` against 35 characters blocks the host for
// minutes. Every schema `pattern` and `patternProperties` therefore runs on re2js, a port of
// RE2 whose matching time is linear in the input. RE2 has no lookahead and no backreference;
// a pattern that needs one cannot be checked safely, so it fails to compile here and the
// catalog leaves its tool out, naming the pattern (see UnsupportedPatternError).
//
// RE2 reads `.` and `\s`/`\S` differently from JavaScript; withJsSemantics spells them out as
// JavaScript means them before compiling, so a pattern accepts the same strings as it would in
// JavaScript (`^.+$` refuses "a\rInjected: x" on both).

/** A schema pattern that a linear-time engine cannot run. */
export class UnsupportedPatternError extends Error {
  override name = "UnsupportedPatternError";
  constructor(
    readonly pattern: string,
    readonly why: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)} cannot run on a linear-time engine: ${why}`);
  }
}

/** The compiled form ajv holds: `test` is all it calls. */
export class LinearRegExp implements RegExpLike {
  readonly #re: RE2JS;
  readonly #source: string;
  constructor(re: RE2JS, source: string) {
    this.#re = re;
    this.#source = source;
  }
  test(text: string): boolean {
    return this.#re.test(text);
  }
  // ajv keeps one compiled pattern per distinct `toString()`: it must name the pattern, or
  // two patterns would share one matcher.
  toString(): string {
    return `re2js:${this.#source}`;
  }
}

/** Why RE2 refused a pattern, in a few words the user can act on. */
function refusalWhy(pattern: string, message: string): string {
  if (pattern.includes("(?=") || pattern.includes("(?!")) return "it uses a lookahead";
  if (message.includes("invalid escape sequence: `\\")) {
    return `it uses a backreference or an escape RE2 does not know (${message})`;
  }
  return message;
}

/** Compiles a JavaScript-syntax pattern (as JSON Schema writes them) for linear matching. */
export function compileLinear(pattern: string): LinearRegExp {
  if (pattern.length > PATTERN_MAX_CHARS) {
    throw new UnsupportedPatternError(
      pattern.slice(0, PATTERN_SHOWN_MAX_CHARS),
      `it is longer than ${PATTERN_MAX_CHARS} characters`,
    );
  }
  let re: RE2JS;
  try {
    // Captureless lookbehinds are linear in re2js, so they are allowed.
    re = RE2JS.compile(RE2JS.translateRegExp(withJsSemantics(pattern)), RE2JS.LOOKBEHINDS);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UnsupportedPatternError(
      pattern.slice(0, PATTERN_SHOWN_MAX_CHARS),
      refusalWhy(pattern, message),
    );
  }
  // Matching is linear in the text, times the size of the compiled program: the program is
  // bounded too, so one check costs a bounded amount even on the longest argument.
  if (re.programSize() > PATTERN_PROGRAM_MAX_SIZE) {
    throw new UnsupportedPatternError(
      pattern.slice(0, PATTERN_SHOWN_MAX_CHARS),
      `it compiles to ${re.programSize()} instructions, over the limit of ` +
        `${PATTERN_PROGRAM_MAX_SIZE}`,
    );
  }
  return new LinearRegExp(re, pattern);
}

/**
 * ajv's `code.regExp` option. ajv passes "u" as the flags (unicodeRegExp); RE2 always
 * matches by code point, so there is nothing to add. `code` only matters to ajv's standalone
 * code generation, which Code Mode does not use.
 */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, _flags: string): RegExpLike => compileLinear(pattern),
  { code: 'require("re2js").RE2JS' },
);

/** The first UnsupportedPatternError in an error's cause chain, if any. */
export function unsupportedPatternIn(error: unknown): UnsupportedPatternError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof UnsupportedPatternError) return current;
    current = current.cause;
  }
  return undefined;
}
