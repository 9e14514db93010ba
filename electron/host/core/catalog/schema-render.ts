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

  /** A point rewind() can take the output back to. */
  mark(): number {
    return this.parts.length;
  }

  /** Takes back what was written since `mark` (nothing once full: the cut shows anyway). */
  rewind(mark: number): void {
    if (this.full) return;
    while (this.parts.length > mark) this.length -= this.parts.pop()?.length ?? 0;
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

/**
 * Where a type's null part goes: every form that admits null (`"type": ["string", "null"]`,
 * `nullable`, a null in an enum, an anyOf alternative) is written once, as a last `| None`, so
 * `str | None` reads the same whichever form the schema took and a caller can tell from the
 * text's end whether None is already in (tool-signature.ts).
 */
interface NullPart {
  seen: boolean;
}

/** A schema that admits null and nothing else: `{"type": "null"}`, `{"const": null}`, ... */
function isNullOnly(node: unknown): boolean {
  if (!isJsonObject(node)) return false;
  if (Object.hasOwn(node, "const")) return own(node, "const") === null;
  const values = own(node, "enum");
  if (Array.isArray(values)) return values.length > 0 && values.every((v) => v === null);
  const type = own(node, "type");
  return (
    type === "null" || (Array.isArray(type) && type.length > 0 && type.every((t) => t === "null"))
  );
}

/**
 * Whether the node's `type` lets null through (so a null in its enum is a value it takes):
 * no `type`, one that names "null", or OpenAPI's `nullable: true`, which the bridge's
 * validator honours beside a `type`.
 */
function typeAdmitsNull(node: JsonObject): boolean {
  const type = own(node, "type");
  if (type === undefined) return true;
  if (own(node, "nullable") === true) return true;
  return type === "null" || (Array.isArray(type) && type.includes("null"));
}

export class SchemaRenderer {
  /** The objects being rendered on the current path: meeting one again is a cycle. */
  private readonly path = new Set<object>();

  constructor(
    private readonly out: BoundedWriter,
    private readonly enumStyle: EnumStyle = "union",
  ) {}

  /**
   * `depth` is the level of the type being written; past STUB_TYPE_DEPTH it prints `...`. A
   * type that admits null ends in `| None` (or is `None`), whatever form the schema gave it.
   */
  type(node: unknown, depth: number): void {
    const nulls: NullPart = { seen: false };
    const start = this.out.mark();
    this.typeWithout(node, depth, nulls);
    if (nulls.seen) this.out.write(this.out.mark() === start ? "None" : " | None");
  }

  /** The type without its null part, which goes to `nulls`. */
  private typeWithout(node: unknown, depth: number, nulls: NullPart): void {
    const out = this.out;
    if (out.full) return;
    if (depth > STUB_TYPE_DEPTH) return out.write("...");
    if (node === true) return out.write("any");
    if (node === false) return out.write("never");
    if (!isJsonObject(node)) return out.write("any");
    if (this.path.has(node)) return out.write("...");
    this.path.add(node);
    try {
      this.objectType(node, depth, nulls);
    } finally {
      this.path.delete(node);
    }
  }

  private objectType(node: JsonObject, depth: number, nulls: NullPart): void {
    const out = this.out;
    if (typeof own(node, "$ref") === "string") return out.write("object");
    if (Object.hasOwn(node, "const")) {
      const value = own(node, "const");
      if (value === null) nulls.seen = true;
      else out.write(renderLiteral(value));
      return;
    }
    const enumValues = own(node, "enum");
    if (Array.isArray(enumValues)) return this.literals(enumValues, typeAdmitsNull(node), nulls);
    for (const key of ["anyOf", "oneOf"]) {
      const alternatives = own(node, key);
      if (Array.isArray(alternatives) && alternatives.length > 0) {
        return this.alternatives(alternatives, depth, nulls);
      }
    }
    const allOf = own(node, "allOf");
    if (Array.isArray(allOf) && allOf.length > 0) return this.allOf(allOf, depth);

    const type = own(node, "type");
    if (type !== undefined && own(node, "nullable") === true) nulls.seen = true;
    if (type === "null") nulls.seen = true;
    else if (typeof type === "string") return this.namedType(type, node, depth);
    if (Array.isArray(type) && type.length > 0) {
      const shown = type.slice(0, UNION_SHOWN_MAX);
      let written = 0;
      for (const t of shown) {
        if (t === "null") {
          nulls.seen = true;
          continue;
        }
        if (written++ > 0) out.write(" | ");
        if (typeof t === "string") this.namedType(t, node, depth);
        else out.write("any");
      }
      if (type.length > shown.length) out.write(" | ...");
      return;
    }
    if (nulls.seen) return;
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

  /** An enum's values; null among them (when the type lets it through) goes to `nulls`. */
  private literals(values: readonly unknown[], nullAllowed: boolean, nulls: NullPart): void {
    const out = this.out;
    const hasNull = values.includes(null);
    if (hasNull && nullAllowed) nulls.seen = true;
    const others = hasNull ? values.filter((v) => v !== null) : values;
    if (others.length === 0) {
      if (!nulls.seen) out.write("never");
      return;
    }
    const typed = this.enumStyle === "literal";
    const separator = typed ? ", " : " | ";
    if (typed) out.write("Literal[");
    const shown = Math.min(others.length, ENUM_SHOWN_MAX);
    for (let i = 0; i < shown && !out.full; i++) {
      if (i > 0) out.write(separator);
      out.write(renderLiteral(others[i]));
    }
    if (others.length > shown) out.write(`${separator}...`);
    if (typed) out.write("]");
  }

  /** anyOf/oneOf: each alternative's type, their null parts gathered in `nulls`. */
  private alternatives(alternatives: readonly unknown[], depth: number, nulls: NullPart): void {
    const out = this.out;
    const shown = Math.min(alternatives.length, UNION_SHOWN_MAX);
    let written = 0;
    for (let i = 0; i < shown && !out.full; i++) {
      const alternative = alternatives[i];
      if (isNullOnly(alternative)) {
        nulls.seen = true;
        continue;
      }
      const mark = out.mark();
      if (written > 0) out.write(" | ");
      const before = out.mark();
      this.typeWithout(alternative, depth + 1, nulls);
      // An alternative that was all null part wrote nothing: no separator for it either.
      if (out.mark() === before) out.rewind(mark);
      else written++;
    }
    if (alternatives.length > shown) out.write(" | ...");
  }

  private allOf(parts: readonly unknown[], depth: number): void {
    const out = this.out;
    const shown = Math.min(parts.length, UNION_SHOWN_MAX);
    for (let i = 0; i < shown && !out.full; i++) {
      if (i > 0) out.write(" & ");
      this.type(parts[i], depth + 1);
    }
    if (parts.length > shown) out.write(" & ...");
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
