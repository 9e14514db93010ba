// A schema's verdict on a value as the namespaced form's ToolError says it, in one line that
// names the place and what was expected: `qty: expected integer, got "2"`. The value is the
// code's own arguments (or the server's structured result), looked up by the error's JSON
// pointer; everything quoted is cut, so the text stays short whatever the value is.
import type { ErrorObject } from "ajv";
import { bounded, SCHEMA_ERRORS_SHOWN_MAX } from "./messages.js";

/** A value quoted after "got" is cut to this many characters. */
export const GOT_SHOWN_MAX_CHARS = 40;

/** Enum values listed after "expected one of"; the rest are left as `...`. */
export const EXPECTED_SHOWN_MAX = 5;

/** A place in the value, as the message names it, is cut to this. */
export const PLACE_SHOWN_MAX_CHARS = 80;

/** The pointer's tokens, unescaped (`~1` is `/`, `~0` is `~`). */
function tokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** `items[0].name` for `/items/0/name`: what a Python reader takes for a place in the value. */
function place(parts: readonly string[]): string {
  let text = "";
  for (const part of parts) {
    if (/^(0|[1-9][0-9]{0,8})$/.test(part)) text += `[${part}]`;
    else text += text === "" ? part : `.${part}`;
  }
  return bounded(text, PLACE_SHOWN_MAX_CHARS);
}

function valueAt(root: unknown, parts: readonly string[]): unknown {
  let node = root;
  for (const part of parts) {
    if (typeof node !== "object" || node === null) return undefined;
    node = Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined;
  }
  return node;
}

/** A JSON value as Python would print it, short: `"2"`, `True`, `None`, `3.5`, a list, a dict. */
export function shownValue(value: unknown): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    const cut =
      value.length > GOT_SHOWN_MAX_CHARS ? `${value.slice(0, GOT_SHOWN_MAX_CHARS)}…` : value;
    return JSON.stringify(cut);
  }
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a dict";
  return "nothing";
}

function expectedTypes(type: unknown): string {
  if (Array.isArray(type)) return type.map(String).join(" or ");
  return String(type);
}

function oneProblem(error: ErrorObject, value: unknown): string {
  const parts = tokens(error.instancePath);
  const where = parts.length === 0 ? "" : `${place(parts)}: `;
  const params = error.params as Record<string, unknown>;
  const got = valueAt(value, parts);
  switch (error.keyword) {
    case "required": {
      const name = typeof params.missingProperty === "string" ? params.missingProperty : "?";
      return `${where}missing required ${parts.length === 0 ? "argument" : "key"} ${JSON.stringify(bounded(name, PLACE_SHOWN_MAX_CHARS))}`;
    }
    case "additionalProperties": {
      const name = typeof params.additionalProperty === "string" ? params.additionalProperty : "?";
      return `${where}unexpected ${parts.length === 0 ? "argument" : "key"} ${JSON.stringify(bounded(name, PLACE_SHOWN_MAX_CHARS))}`;
    }
    case "type":
      return `${where}expected ${expectedTypes(params.type)}, got ${shownValue(got)}`;
    case "enum": {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      const listed = allowed.slice(0, EXPECTED_SHOWN_MAX).map(shownValue);
      if (allowed.length > listed.length) listed.push("...");
      return `${where}expected one of ${listed.join(", ")}, got ${shownValue(got)}`;
    }
    default:
      return `${where}${error.message ?? "is invalid"}, got ${shownValue(got)}`;
  }
}

/**
 * ajv's errors as one line: `qty: expected integer, got "2"`; `missing required argument
 * "qty"`; `unexpected argument "quantity"`. Several are joined with "; ".
 */
export function argumentProblems(
  errors: readonly ErrorObject[] | null | undefined,
  value: unknown,
): string {
  if (!errors || errors.length === 0) return "they do not match its schema";
  return errors
    .slice(0, SCHEMA_ERRORS_SHOWN_MAX)
    .map((error) => oneProblem(error, value))
    .join("; ");
}
