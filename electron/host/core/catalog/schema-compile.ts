import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { SCHEMA_FORMATS } from "./schema-formats.js";
import { linearRegExpEngine, unsupportedPatternIn } from "./schema-regexp.js";
import { needsUniqueItemsBound, withUniqueItemsBound } from "./unique-items-bound.js";
import { withEnumsSummarised } from "./enum-summary.js";
import { HASHED_ENUM_KEYWORD } from "./hashed-enum.js";
import { HASHED_UNIQUE_ITEMS_KEYWORD } from "./hashed-unique-items.js";
import { cutCodePoints, oneLine } from "../../util/text-cut.js";
import { resolveLocalRef } from "./local-ref.js";
import { unfoldedSizeOver } from "./unfolded-size.js";

/**
 * An output schema larger than this once its `$ref`s are unfolded is not checked (its results
 * come back unchecked, with a warning): checking could take exponential time.
 */
export const OUTPUT_SCHEMA_UNFOLDED_MAX = 2_000;

/**
 * An input schema larger than this once its `$ref`s are unfolded (or one that refers to itself)
 * is not compiled, and its tool is left out: the code in the sandbox writes the arguments checked
 * against it, and a value failing deep inside such a schema could hold the host's thread for
 * hours. Schemas generated from typed models unfold to a few dozen subschemas.
 */
export const INPUT_SCHEMA_UNFOLDED_MAX = 2_000;

/** A schema nested deeper than this is not compiled: the tool is left out. */
export const SCHEMA_MAX_DEPTH = 32;

/** An unknown `$schema` value quoted in the reason a tool is left out is cut to this. */
export const SCHEMA_DIALECT_SHOWN_MAX_CHARS = 100;

/** The reason a tool is left out reaches the user's terminal and may quote the schema. */
export const SCHEMA_REASON_MAX_CHARS = 300;

// A tool's input schema comes from its server and is checked before anything is compiled:
// too deep a schema could exhaust the stack in ajv or in the bridge, so it is measured first
// with a walk that stops at the limit.

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(node: JsonObject, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/**
 * True when `schema` nests objects and arrays more than `maxDepth` levels (the schema object
 * itself is level 1), or holds a cycle. Each container is explored again only when met at a
 * shallower level than before, so shared sub-schemas cannot make the walk exponential.
 */
export function isNestedDeeperThan(schema: unknown, maxDepth: number): boolean {
  const shallowestSeen = new WeakMap<object, number>();
  const onPath = new Set<object>();

  const visit = (node: unknown, level: number): boolean => {
    if (typeof node !== "object" || node === null) return false;
    if (level > maxDepth) return true;
    if (onPath.has(node)) return true;
    const seen = shallowestSeen.get(node);
    if (seen !== undefined && seen <= level) return false;
    shallowestSeen.set(node, level);
    onPath.add(node);
    try {
      const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
      for (const child of children) if (visit(child, level + 1)) return true;
      return false;
    } finally {
      onPath.delete(node);
    }
  };
  return visit(schema, 1);
}

/** A tool's schema as the catalog keeps it: anything that is not an object means "no arguments". */
export function normaliseInputSchema(inputSchema: unknown): JsonObject {
  return isJsonObject(inputSchema) ? inputSchema : { type: "object" };
}

function describesObject(schema: JsonObject): boolean {
  const type = own(schema, "type");
  if (type === undefined) return true;
  if (type === "object") return true;
  return Array.isArray(type) && type.includes("object");
}

const BRANCH_LISTS = ["allOf", "anyOf", "oneOf"] as const;
const BRANCH_SCHEMAS = ["if", "then", "else"] as const;
const BRANCH_MAPS = ["dependentSchemas", "dependencies"] as const;

/**
 * The property names an object schema declares at its top level, including through
 * composition (allOf, anyOf, oneOf, if/then/else, dependent schemas) and local `$ref`s.
 * null when it cannot tell (a remote `$ref`, `patternProperties` in a branch), in which case
 * closing the schema would refuse arguments it means to accept.
 */
function declaredPropertyNames(root: JsonObject): Set<string> | null {
  const names = new Set<string>();
  const visited = new Set<object>();

  const collect = (node: unknown, isRoot: boolean): boolean => {
    if (typeof node === "boolean") return true;
    if (!isJsonObject(node)) return true;
    if (visited.has(node)) return true;
    visited.add(node);

    const properties = own(node, "properties");
    if (isJsonObject(properties)) for (const name of Object.keys(properties)) names.add(name);
    if (!isRoot && own(node, "patternProperties") !== undefined) return false;

    const ref = own(node, "$ref");
    if (ref !== undefined) {
      if (typeof ref !== "string") return false;
      const target = resolveLocalRef(root, ref);
      if (target === undefined || !collect(target, false)) return false;
    }
    for (const key of BRANCH_LISTS) {
      const list = own(node, key);
      if (Array.isArray(list)) for (const branch of list) if (!collect(branch, false)) return false;
    }
    for (const key of BRANCH_SCHEMAS) if (!collect(own(node, key), false)) return false;
    for (const key of BRANCH_MAPS) {
      const map = own(node, key);
      if (!isJsonObject(map)) continue;
      // draft-07 `dependencies` mixes schemas and name lists; only schemas declare properties.
      for (const value of Object.values(map)) if (!collect(value, false)) return false;
    }
    return true;
  };
  return collect(root, true) ? names : null;
}

/**
 * The schema the bridge validates with: properties the schema does not declare are refused
 * unless it says otherwise, so a copy gets `additionalProperties: false` at the top level when
 * it says nothing. Names declared only through composition are listed at the top as `true`
 * (no further constraint), since a top-level `additionalProperties` cannot see into branches.
 */
export function closeTopLevel(schema: JsonObject): JsonObject {
  if (Object.hasOwn(schema, "additionalProperties")) return schema;
  if (Object.hasOwn(schema, "unevaluatedProperties")) return schema;
  if (!describesObject(schema)) return schema;
  const names = declaredPropertyNames(schema);
  if (names === null) return schema;
  const ownProperties = own(schema, "properties");
  const properties: JsonObject = {};
  for (const name of names) properties[name] = true;
  if (isJsonObject(ownProperties)) Object.assign(properties, ownProperties);
  return { ...schema, properties, additionalProperties: false };
}

type Dialect = "draft-07" | "2019-09" | "2020-12";

interface AjvLike {
  validateSchema(schema: JsonObject): boolean | Promise<unknown>;
  errorsText(errors?: Ajv["errors"]): string;
  errors?: Ajv["errors"];
  compile(schema: JsonObject): ValidateFunction;
}

// `logger: false`: unknown formats and keywords are expected from arbitrary servers and must
// not print to the host's console. Defaults, coercion and removal stay off: validation must
// never change the arguments it checks. Patterns run on a linear-time engine
// (schema-regexp.ts): the strings they are matched against come from the sandbox.
const AJV_OPTIONS: Options = {
  strict: false,
  allErrors: false,
  logger: false,
  code: { regExp: linearRegExpEngine },
};

/** Compiling (not meta-checking) also enforces `format` keywords (schema-formats.ts). */
const COMPILE_OPTIONS: Options = {
  ...AJV_OPTIONS,
  validateSchema: false,
  formats: { ...SCHEMA_FORMATS },
};

function newAjv(dialect: Dialect, options: Options): Ajv {
  switch (dialect) {
    case "draft-07":
      return new Ajv(options);
    case "2019-09":
      return new Ajv2019(options);
    case "2020-12":
      return new Ajv2020(options);
  }
}

/**
 * The ajv that compiles a tool's schema: `enum` and `uniqueItems` looked up in a hash
 * (hashed-enum.ts, hashed-unique-items.ts).
 */
function compilingAjv(dialect: Dialect): AjvLike {
  return newAjv(dialect, COMPILE_OPTIONS)
    .removeKeyword("enum")
    .addKeyword(HASHED_ENUM_KEYWORD)
    .removeKeyword("uniqueItems")
    .addKeyword(HASHED_UNIQUE_ITEMS_KEYWORD);
}

// Checking a schema against its meta-schema registers nothing, so one checker per dialect can
// serve every tool; compiling does register ids, so each tool compiles in an instance of its
// own and no server's `$id` can stand in for another tool's `$ref`.
const checkers = new Map<Dialect, AjvLike>();

function checkerFor(dialect: Dialect): AjvLike {
  let checker = checkers.get(dialect);
  if (checker === undefined) {
    checker = newAjv(dialect, AJV_OPTIONS);
    checkers.set(dialect, checker);
  }
  return checker;
}

function dialectOf(schema: JsonObject): { dialect: Dialect } | { reason: string } {
  const declared = own(schema, "$schema");
  if (declared === undefined) return { dialect: "draft-07" };
  if (typeof declared !== "string") return { reason: "its $schema is not a string" };
  const known: [RegExp, Dialect][] = [
    [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, "2020-12"],
    [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, "2019-09"],
    [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, "draft-07"],
  ];
  for (const [pattern, dialect] of known) if (pattern.test(declared)) return { dialect };
  const shown = JSON.stringify(declared.slice(0, SCHEMA_DIALECT_SHOWN_MAX_CHARS));
  return { reason: `its $schema ${shown} is not draft-07, 2019-09 or 2020-12` };
}

export type CompiledSchema =
  { ok: true; validate: ValidateFunction } | { ok: false; reason: string };

/** Reasons reach the user's terminal and may quote the schema: one line, no controls. */
function oneLineReason(text: string): string {
  return cutCodePoints(oneLine(text), SCHEMA_REASON_MAX_CHARS);
}

/**
 * Checks and compiles one tool's input schema; never throws. A failure carries a one-line
 * reason for the warning that leaves the tool out.
 */
export function compileInputSchema(inputSchema: JsonObject): CompiledSchema {
  const compiled = compileToolSchema(inputSchema, "input schema", closeTopLevel);
  // Measured once it compiles, so that a schema ajv refuses is left out for that reason.
  if (compiled.ok && unfoldedSizeOver(inputSchema, INPUT_SCHEMA_UNFOLDED_MAX)) {
    return {
      ok: false,
      reason:
        `its input schema, its $refs unfolded, holds more than ` +
        `${INPUT_SCHEMA_UNFOLDED_MAX} subschemas or refers to itself: its arguments could not ` +
        "be checked in bounded time",
    };
  }
  return compiled;
}

/**
 * Checks and compiles one tool's output schema, which its results' structured content is checked
 * against (as MCP asks of clients); never throws. Not closed: a result may carry more than its
 * schema names, as JSON Schema allows unless the schema says otherwise.
 */
export function compileOutputSchema(outputSchema: JsonObject): CompiledSchema {
  // The server sends both this schema and the results checked against it (unfolded-size.ts).
  if (unfoldedSizeOver(outputSchema, OUTPUT_SCHEMA_UNFOLDED_MAX)) {
    return {
      ok: false,
      reason:
        `its output schema, its $refs unfolded, holds more than ` +
        `${OUTPUT_SCHEMA_UNFOLDED_MAX} subschemas or refers to itself`,
    };
  }
  return compileToolSchema(outputSchema, "output schema", (schema) => schema);
}

function compileToolSchema(
  schema: JsonObject,
  what: "input schema" | "output schema",
  prepare: (schema: JsonObject) => JsonObject,
): CompiledSchema {
  if (isNestedDeeperThan(schema, SCHEMA_MAX_DEPTH)) {
    return {
      ok: false,
      reason: `its ${what} is nested deeper than ${SCHEMA_MAX_DEPTH} levels`,
    };
  }
  // An async validator returns a promise, which is truthy: every call would pass.
  if (own(schema, "$async") !== undefined) {
    return { ok: false, reason: `its ${what} is asynchronous ($async)` };
  }
  const found = dialectOf(schema);
  if ("reason" in found) return { ok: false, reason: found.reason };
  const { dialect } = found;
  try {
    const checker = checkerFor(dialect);
    // Its enums summarised (enum-summary.ts): ajv compares an enum's values pair by pair here.
    if (checker.validateSchema(withEnumsSummarised(schema) as JsonObject) !== true) {
      return {
        ok: false,
        reason: oneLineReason(`its ${what} is invalid: ${checker.errorsText(checker.errors)}`),
      };
    }
    const ajv = compilingAjv(dialect);
    const validate = ajv.compile(prepare(schema));
    if ((validate as { $async?: unknown }).$async === true) {
      return { ok: false, reason: `its ${what} is asynchronous ($async)` };
    }
    return {
      ok: true,
      validate: needsUniqueItemsBound(schema) ? withUniqueItemsBound(validate) : validate,
    };
  } catch (error) {
    const unsupported = unsupportedPatternIn(error);
    if (unsupported !== undefined) {
      return {
        ok: false,
        reason: oneLineReason(`its ${what}'s ${unsupported.message}`),
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: oneLineReason(`ajv cannot compile its ${what}: ${message}`) };
  }
}
