// What checking one argument against a hostile schema pattern costs the host,
// before (ajv on JavaScript's backtracking RegExp) and after (Code Mode's schema compiler,
// patterns on re2js), side by side in one run. Also the cost of the `format` checks that run
// on JavaScript at the longest string they accept.
//
//   npx tsx bench/schema-pattern.ts

import { Ajv } from "ajv";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { compileInputSchema } from "../electron/host/core/catalog/schema-compile.js";
import {
  SCHEMA_FORMATS,
  FORMAT_CHECK_MAX_CHARS,
} from "../electron/host/core/catalog/schema-formats.js";
import { median } from "./stats.js";
import { report } from "./report.js";

const PATTERN = "^(\\w+\\s?)*$";
const schema = {
  type: "object",
  properties: { query: { type: "string", pattern: PATTERN } },
  required: ["query"],
};

const before = new Ajv({ strict: false, logger: false }).compile(schema);
const compiled = compileInputSchema(schema);
if (!compiled.ok) throw new Error(compiled.reason);
const after = compiled.validate;

/** Median milliseconds of `runs` calls of `fn`. */
function time(fn: () => unknown, runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

// Warm both up on a harmless string, so neither pays for compilation in the table.
for (let i = 0; i < 50; i++) {
  before({ query: "two words" });
  after({ query: "two words" });
}

// The old engine doubles its time with each character: past this it would take minutes.
const BEFORE_MAX_CHARS = 26;
const fmt = (ms: number): string => `${ms < 1 ? ms.toFixed(3) : ms.toFixed(0)} ms`;

console.log(`\nschema pattern ${JSON.stringify(PATTERN)}, argument "a" * (n - 1) + "!"`);
console.log(
  `${"n chars".padStart(8)}  ${"before (RegExp)".padStart(16)}  ${"after (re2js)".padStart(14)}`,
);
for (const n of [12, 16, 18, 20, 22, 24, 26, 35, 1_000, 16_000]) {
  const query = `${"a".repeat(n - 1)}!`;
  const old =
    n <= BEFORE_MAX_CHARS ? fmt(time(() => before({ query }), n <= 20 ? 5 : 1)) : "(minutes)";
  const nowMs = time(() => after({ query }), 5);
  const now = fmt(nowMs);
  console.log(`${String(n).padStart(8)}  ${old.padStart(16)}  ${now.padStart(14)}`);
  if (n === 24) {
    const oldMs = time(() => before({ query }), 1);
    report({
      what: `checking a ${n}-char argument against the hostile schema pattern \`${PATTERN}\`, now (re2js)`,
      value: nowMs,
      baseline: oldMs,
      baselineWhat: "ajv on JavaScript's backtracking RegExp (before), 1 round",
      note: "median of 5; the before doubles with each char",
    });
  }
}

// Formats that have no linear form run on JavaScript, capped at FORMAT_CHECK_MAX_CHARS.
const cap = FORMAT_CHECK_MAX_CHARS;
const hostile: Record<string, string> = {
  "date-time": `2026-01-01T${"1".repeat(cap - 11)}`,
  duration: `P${"1".repeat(cap - 2)}X`,
  hostname: "a".repeat(cap),
  uri: `a://${"a".repeat(cap - 5)}\\`,
  byte: `${"A".repeat(cap - 1)}!`,
  regex: "(a|a)*".repeat(Math.floor(cap / 6)),
  url: `http://${":".repeat(16_000)}`,
};
console.log(`\nformat checks on JavaScript, hostile string (at most ${cap} chars after)`);
console.log(`${"format".padStart(10)}  ${"before".padStart(12)}  ${"after".padStart(12)}`);
const defined = fullFormats as Record<string, unknown>;
for (const [name, text] of Object.entries(hostile)) {
  const raw = defined[name];
  const oldCheck =
    raw instanceof RegExp
      ? (s: string) => raw.test(s)
      : typeof raw === "function"
        ? (raw as (s: string) => boolean)
        : ((raw as { validate: RegExp | ((s: string) => boolean) }).validate as unknown);
  const run =
    oldCheck instanceof RegExp
      ? (s: string) => oldCheck.test(s)
      : (oldCheck as (s: string) => boolean);
  const ajvAfter = new Ajv({ strict: false, logger: false, formats: { ...SCHEMA_FORMATS } });
  const checkAfter = ajvAfter.compile({ type: "string", format: name });
  const old = fmt(time(() => run(text), 3));
  const now = name in SCHEMA_FORMATS ? fmt(time(() => checkAfter(text), 3)) : "(unchecked)";
  console.log(
    `${name.padStart(10)}  ${old.padStart(12)}  ${now.padStart(12)}   (${text.length} chars)`,
  );
}
