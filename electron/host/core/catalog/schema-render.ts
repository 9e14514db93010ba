import { CUT_MARK, cutCodePoints } from "../../util/text-cut.js";

export const STUB_TYPE_DEPTH = 5;

export const PARAM_NAME_MAX_CHARS = 64;

// Rendered parameter lists. Schemas come from the wrapped servers and may be hostile (huge
// enums, thousands of properties, cycles): every piece is bounded, so the cost of rendering
// is bounded by these caps, not by the size or shape of the schema.
/** The most characters a whole rendered parameter list may take. */
export const PARAM_LIST_MAX_CHARS = 1_000;

/** The most parameter-name characters a summary line's `name(a, b)` may take. */
export const SUMMARY_PARAMS_MAX_CHARS = 80;

/** Enum values shown before `| ...`. */
export const ENUM_SHOWN_MAX = 10;

/** anyOf/oneOf/allOf/type alternatives shown before `| ...`. */
export const UNION_SHOWN_MAX = 8;

/** Characters of one string literal (enum or const value) shown. */
export const LITERAL_MAX_CHARS = 40;

// Schemas come from the wrapped servers and may be hostile: huge enums, thousands of
// properties, shared (even cyclic) object references, or not schemas at all. Every piece
// written here is bounded, and the writer stops all work once the list is full, so the cost
// of rendering is bounded by the output cap, not by the size or shape of the schema. The caps
// are the constants above.

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own properties only: a key such as `type` must never be read off Object.prototype. */
export function own(node: JsonObject, key: string): unknown {
  return Object.hasOwn(node, key) ? node[key] : undefined;
}

/**
 * A JSON string literal that also escapes the separators JSON leaves raw (U+0085, U+2028,
 * U+2029), which some readers take for line breaks: a quoted value stays on its line.
 */
export function quote(text: string): string {
  return JSON.stringify(text).replace(
    /[\u0085\u2028\u2029]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A property name as a stub shows it: bare when it is a plain identifier, else quoted. */
export function renderParamName(name: string): string {
  if (name.length <= PARAM_NAME_MAX_CHARS && PLAIN_IDENTIFIER.test(name)) return name;
  return quote(cutCodePoints(name, PARAM_NAME_MAX_CHARS));
}

/** Collects output until `max` characters, then refuses more and tells callers to stop. */
export class BoundedWriter {
  private readonly parts: string[] = [];
  private length = 0;
  full = false;

  constructor(private readonly max: number) {}

  write(text: string): void {
    if (this.full) return;
    this.parts.push(text);
    this.length += text.length;
    if (this.length > this.max) this.full = true;
  }

  toString(): string {
    const joined = this.parts.join("");
    if (!this.full) return joined;
    let cut = this.max - CUT_MARK.length;
    // Never leave half a surrogate pair behind the cut.
    const last = joined.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
    return joined.slice(0, cut) + CUT_MARK;
  }
}

function renderLiteral(value: unknown): string {
  if (typeof value === "string") {
    return quote(cutCodePoints(value, LITERAL_MAX_CHARS));
  }
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "float";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null) return "None";
  // Objects and arrays as enum values are rare and could be huge: show their kind only.
  return Array.isArray(value) ? "[...]" : "{...}";
}

const BASE_TYPES: Readonly<Record<string, string>> = {
  string: "str",
  integer: "int",
  number: "float",
  boolean: "bool",
  null: "None",
};

/**
 * How enums read: `"fast" | "slow"`, or, in a typed signature, `Literal["fast", "slow"]` as
 * Python's typing spells it.
 */
export type EnumStyle = "union" | "literal";

export class SchemaRenderer {
  /** The objects being rendered on the current path: meeting one again is a cycle. */
  private readonly path = new Set<object>();

  constructor(
    private readonly out: BoundedWriter,
    private readonly enumStyle: EnumStyle = "union",
  ) {}

  /** `depth` is the level of the type being written; past STUB_TYPE_DEPTH it prints `...`. */
  type(node: unknown, depth: number): void {
    const out = this.out;
    if (out.full) return;
    if (depth > STUB_TYPE_DEPTH) return out.write("...");
    if (node === true) return out.write("any");
    if (node === false) return out.write("never");
    if (!isJsonObject(node)) return out.write("any");
    if (this.path.has(node)) return out.write("...");
    this.path.add(node);
    try {
      this.objectType(node, depth);
    } finally {
      this.path.delete(node);
    }
  }

  private objectType(node: JsonObject, depth: number): void {
    const out = this.out;
    if (typeof own(node, "$ref") === "string") return out.write("object");
    if (Object.hasOwn(node, "const")) return out.write(renderLiteral(own(node, "const")));
    const enumValues = own(node, "enum");
    if (Array.isArray(enumValues)) return this.literals(enumValues);
    for (const key of ["anyOf", "oneOf"]) {
      const alternatives = own(node, key);
      if (Array.isArray(alternatives) && alternatives.length > 0) {
        return this.union(alternatives, " | ", depth);
      }
    }
    const allOf = own(node, "allOf");
    if (Array.isArray(allOf) && allOf.length > 0) return this.union(allOf, " & ", depth);

    const type = own(node, "type");
    if (typeof type === "string") return this.namedType(type, node, depth);
    if (Array.isArray(type) && type.length > 0) {
      const shown = type.slice(0, UNION_SHOWN_MAX);
      shown.forEach((t, i) => {
        if (i > 0) out.write(" | ");
        if (typeof t === "string") this.namedType(t, node, depth);
        else out.write("any");
      });
      if (type.length > shown.length) out.write(" | ...");
      return;
    }
    if (isJsonObject(own(node, "properties"))) return this.namedType("object", node, depth);
    if (Object.hasOwn(node, "items")) return this.namedType("array", node, depth);
    out.write("any");
  }

  private namedType(type: string, node: JsonObject, depth: number): void {
    const out = this.out;
    if (Object.hasOwn(BASE_TYPES, type)) return out.write(BASE_TYPES[type] ?? "any");
    if (type === "array") {
      const items = own(node, "items");
      if (!isJsonObject(items) || Object.keys(items).length === 0) return out.write("list");
      out.write("list[");
      this.type(items, depth + 1);
      return out.write("]");
    }
    if (type === "object") {
      const properties = own(node, "properties");
      if (isJsonObject(properties) && Object.keys(properties).length > 0) {
        out.write("dict{");
        this.fields(node, properties, depth + 1);
        return out.write("}");
      }
      const extra = own(node, "additionalProperties");
      if (isJsonObject(extra)) {
        out.write("dict[str, ");
        this.type(extra, depth + 1);
        return out.write("]");
      }
      return out.write("dict");
    }
    out.write("any");
  }

  private literals(values: readonly unknown[]): void {
    const out = this.out;
    if (values.length === 0) return out.write("never");
    const typed = this.enumStyle === "literal";
    const separator = typed ? ", " : " | ";
    if (typed) out.write("Literal[");
    const shown = Math.min(values.length, ENUM_SHOWN_MAX);
    for (let i = 0; i < shown && !out.full; i++) {
      if (i > 0) out.write(separator);
      out.write(renderLiteral(values[i]));
    }
    if (values.length > shown) out.write(`${separator}...`);
    if (typed) out.write("]");
  }

  private union(alternatives: readonly unknown[], separator: string, depth: number): void {
    const out = this.out;
    const shown = Math.min(alternatives.length, UNION_SHOWN_MAX);
    for (let i = 0; i < shown && !out.full; i++) {
      if (i > 0) out.write(separator);
      this.type(alternatives[i], depth + 1);
    }
    if (alternatives.length > shown) out.write(`${separator}...`);
  }

  /** `name: type` pairs of one object schema; fields' types are written at `depth`. */
  fields(node: JsonObject, properties: JsonObject, depth: number): void {
    const out = this.out;
    const required = requiredNames(node);
    let first = true;
    for (const name of Object.keys(properties)) {
      if (out.full) return;
      if (!first) out.write(", ");
      first = false;
      out.write(`${renderParamName(name)}: `);
      this.type(properties[name], depth);
      if (!required.has(name)) out.write(" (optional)");
    }
  }
}

export function requiredNames(node: JsonObject): Set<string> {
  const required = own(node, "required");
  const names = new Set<string>();
  if (Array.isArray(required)) {
    for (const name of required) if (typeof name === "string") names.add(name);
  }
  return names;
}

/**
 * The parameters of a tool's input schema, e.g.
 * `a: int, b: int, tags: list[str] (optional), mode: "fast" | "slow"`; empty when the schema
 * names none. Never longer than PARAM_LIST_MAX_CHARS.
 */
export function renderParamList(schema: unknown): string {
  if (!isJsonObject(schema)) return "";
  const out = new BoundedWriter(PARAM_LIST_MAX_CHARS);
  const renderer = new SchemaRenderer(out);
  const properties = own(schema, "properties");
  const hasProperties = isJsonObject(properties) && Object.keys(properties).length > 0;
  if (hasProperties) renderer.fields(schema, properties, 1);
  const extra = own(schema, "additionalProperties");
  if (extra === true || isJsonObject(extra)) {
    if (hasProperties) out.write(", ");
    // Keys the schema does not name but allows.
    out.write("...: ");
    renderer.type(extra, 1);
  }
  return out.toString();
}

/** The parameter names alone, for a summary line: `a, b, "odd name", ...`. */
export function renderParamNames(schema: unknown): string {
  if (!isJsonObject(schema)) return "";
  const properties = own(schema, "properties");
  if (!isJsonObject(properties)) return "";
  const max = SUMMARY_PARAMS_MAX_CHARS;
  let text = "";
  for (const name of Object.keys(properties)) {
    const next = (text === "" ? "" : ", ") + renderParamName(name);
    if (text.length + next.length > max) return text === "" ? "..." : `${text}, ...`;
    text += next;
  }
  return text;
}
