// A tool's typed signature, as the code calls it: `async def shop.add_item(*, qty: int,
// note: str | None = None) -> dict{total: float}`. Keyword-only parameters from the input
// schema, the return type from the output schema. Like every rendering of a server's schema it
// is bounded by its output caps, never by the schema's size or shape (schema-render.ts).
import { PYTHON_KEYWORDS } from "./python-names.js";
import {
  BoundedWriter,
  isJsonObject,
  own,
  PARAM_LIST_MAX_CHARS,
  PARAM_NAME_MAX_CHARS,
  quote,
  requiredNames,
  SchemaRenderer,
  type JsonObject,
} from "./schema-render.js";
import { cutCodePoints, firstSentence } from "../../util/text-cut.js";

/** The most characters a return type from an output schema may take. */
export const RETURN_TYPE_MAX_CHARS = 200;

/** A parameter's line in the stub keeps the first sentence of its description, cut to this. */
export const PARAM_DOC_MAX_CHARS = 100;

/** Parameters given a line of their own in the stub; the rest are in the signature only. */
export const PARAM_DOCS_MAX = 20;

/** The return type of a tool that declares no output schema: whatever its result parses to. */
export const UNTYPED_RESULT = "any";

const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * How a parameter is passed as a keyword: its own name when that is a plain ASCII identifier,
 * with a trailing `_` when it is a Python keyword (`from_=`, unless the schema also declares
 * that name), else null: such a name goes through `**{"with space": 1}`. The runner maps
 * names the same way (runner.py, _keyword_names).
 */
export function keywordFor(name: string, declared: ReadonlySet<string>): string | null {
  if (name.length > PARAM_NAME_MAX_CHARS || !ASCII_IDENTIFIER.test(name)) return null;
  if (!PYTHON_KEYWORDS.has(name)) return name;
  const alias = `${name}_`;
  return declared.has(alias) ? null : alias;
}

function propertiesOf(schema: unknown): JsonObject | null {
  if (!isJsonObject(schema)) return null;
  const properties = own(schema, "properties");
  return isJsonObject(properties) ? properties : null;
}

/**
 * A type that already admits None needs no `| None` of its own: the renderer writes a type's
 * null part last, whatever form the schema gave it (schema-render.ts).
 */
function admitsNone(type: string): boolean {
  return type === "None" || type === "any" || type.endsWith("| None");
}

function typeText(node: unknown, max: number): string {
  const out = new BoundedWriter(max);
  new SchemaRenderer(out, "literal").type(node, 1);
  return out.toString();
}

/**
 * The parameters between the parentheses: `*, a: int, b: str | None = None`, then names that
 * are not identifiers as `**{"x y": int}`, then `**more: any` when the schema allows names it
 * does not declare. Empty for a tool without parameters. At most PARAM_LIST_MAX_CHARS.
 */
export function renderSignatureParams(schema: unknown): string {
  const out = new BoundedWriter(PARAM_LIST_MAX_CHARS);
  const renderer = new SchemaRenderer(out, "literal");
  const properties = propertiesOf(schema) ?? {};
  const node = isJsonObject(schema) ? schema : {};
  const required = requiredNames(node);
  const names = Object.keys(properties);
  const declared = new Set(names);
  const quoted: string[] = [];
  let written = 0;
  // Python allows a bare `*` only before a named parameter: `**{...}` and `**more` alone need none.
  const separate = (named: boolean): void => {
    if (written++ > 0) out.write(", ");
    else if (named) out.write("*, ");
  };
  for (const name of names) {
    if (out.full) break;
    const keyword = keywordFor(name, declared);
    if (keyword === null) {
      quoted.push(name);
      continue;
    }
    separate(true);
    out.write(`${keyword}: `);
    param(renderer, out, properties[name], required.has(name));
  }
  if (quoted.length > 0 && !out.full) {
    separate(false);
    out.write("**{");
    quoted.forEach((name, i) => {
      if (i > 0) out.write(", ");
      out.write(`${quote(cutCodePoints(name, PARAM_NAME_MAX_CHARS))}: `);
      param(renderer, out, properties[name], required.has(name), false);
    });
    out.write("}");
  }
  const extra = own(node, "additionalProperties");
  if ((extra === true || isJsonObject(extra)) && !out.full) {
    separate(false);
    out.write("**more: ");
    renderer.type(extra, 1);
  }
  return out.toString();
}

/** One parameter's type; an optional one reads `T | None = None` (`T | None` inside `**{}`). */
function param(
  renderer: SchemaRenderer,
  out: BoundedWriter,
  node: unknown,
  isRequired: boolean,
  withDefault = true,
): void {
  if (isRequired) return renderer.type(node, 1);
  // Rendered apart first: whether it admits None already decides the tail.
  const type = typeText(node, PARAM_LIST_MAX_CHARS);
  out.write(admitsNone(type) ? type : `${type} | None`);
  if (withDefault) out.write(" = None");
}

/** `dict{...}` from a tool's output schema, or UNTYPED_RESULT when it has none. */
export function renderReturnType(outputSchema: unknown): string {
  if (!isJsonObject(outputSchema)) return UNTYPED_RESULT;
  return typeText(outputSchema, RETURN_TYPE_MAX_CHARS);
}

/**
 * One line per documented parameter: `name: the first sentence of its description`, named as
 * the signature names it. At most PARAM_DOCS_MAX lines of at most PARAM_DOC_MAX_CHARS each.
 */
export function renderParamDocs(schema: unknown): string[] {
  const properties = propertiesOf(schema);
  if (properties === null) return [];
  const declared = new Set(Object.keys(properties));
  const lines: string[] = [];
  for (const name of declared) {
    if (lines.length >= PARAM_DOCS_MAX) break;
    const node = properties[name];
    const description = isJsonObject(node) ? own(node, "description") : undefined;
    if (typeof description !== "string") continue;
    const sentence = firstSentence(description, PARAM_DOC_MAX_CHARS);
    if (sentence === "") continue;
    const shown = keywordFor(name, declared) ?? quote(cutCodePoints(name, PARAM_NAME_MAX_CHARS));
    lines.push(`${shown}: ${sentence}`);
  }
  return lines;
}
