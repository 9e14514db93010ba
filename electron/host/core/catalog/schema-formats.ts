import type { Format, FormatDefinition } from "ajv";
import { fullFormats, type FormatName } from "ajv-formats/dist/formats.js";
import { RE2JS } from "re2js";

/**
 * `format` checks that have no linear-time form (ajv-formats' functions and its patterns
 * with lookahead) run on strings up to this long; a longer one is accepted unchecked.
 */
export const FORMAT_CHECK_MAX_CHARS = 2_048;

// `format` keywords (`date-time`, `email`, `uri`, ...) are enforced, as a schema's author
// expects, with ajv-formats' full definitions. Those are JavaScript regexes and functions run
// over strings the sandbox chose, so each is made cheap first:
// - a plain regex runs on re2js (linear time, any length);
// - a function, or a regex RE2 cannot run (lookahead), runs on strings up to
//   FORMAT_CHECK_MAX_CHARS only, which bounds its cost (bench/schema-pattern.ts
//   measures each at the cap). A longer string is accepted unchecked, as every string was
//   before formats were enforced: refusing it would break honest calls (a 4,000-character
//   base64 `byte`, a signed `uri` of 3 KB), and the server checks its own input anyway.
// `url` is left out: it is not a JSON Schema format, and its lookahead regex is quadratic
// (about 1 s for a 16 KiB argument); a schema naming it gets no check, as before.

const LEFT_OUT: ReadonlySet<FormatName> = new Set(["url"]);

type StringCheck = (text: string) => boolean;

function linear(regex: RegExp): StringCheck | undefined {
  try {
    const re = RE2JS.compile(RE2JS.translateRegExp(regex));
    return (text) => re.test(text);
  } catch {
    return undefined;
  }
}

/** Checks up to the cap; above it, accepts without running the check (see above). */
function capped(check: StringCheck): StringCheck {
  return (text) => text.length > FORMAT_CHECK_MAX_CHARS || check(text);
}

function stringCheck(validate: unknown): StringCheck | undefined {
  if (validate instanceof RegExp) return linear(validate) ?? capped((text) => validate.test(text));
  if (typeof validate === "function") {
    const check = validate as StringCheck;
    return capped((text) => check(text));
  }
  return undefined;
}

/** One format as Code Mode checks it; undefined keeps ajv-formats' own (numbers, `true`). */
function safeFormat(format: Format): Format | undefined {
  if (format === true || typeof format === "string") return undefined;
  if (format instanceof RegExp || typeof format === "function") return stringCheck(format);
  const definition = format as { type?: string; async?: boolean; validate: unknown };
  if (definition.type === "number" || definition.async === true) return undefined;
  const validate = stringCheck(definition.validate);
  if (validate === undefined) return undefined;
  return { ...(definition as FormatDefinition<string>), type: "string", validate };
}

/** Every format Code Mode enforces, by name, in the form ajv's `formats` option takes. */
export const SCHEMA_FORMATS: Readonly<Record<string, Format>> = Object.freeze(
  Object.fromEntries(
    (Object.entries(fullFormats) as [FormatName, Format][])
      .filter(([name]) => !LEFT_OUT.has(name))
      .map(([name, format]) => [name, safeFormat(format) ?? format]),
  ),
);

/** Names of the formats that run on the linear engine, with no length cap (for tests). */
export function linearFormatNames(): string[] {
  return (Object.entries(fullFormats) as [FormatName, Format][])
    .filter(([name]) => !LEFT_OUT.has(name))
    .filter(([, format]) => {
      const regex =
        format instanceof RegExp
          ? format
          : typeof format === "object" && format.validate instanceof RegExp
            ? format.validate
            : undefined;
      return regex !== undefined && linear(regex) !== undefined;
    })
    .map(([name]) => name);
}
