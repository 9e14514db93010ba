// The run_python description's code examples, made from the catalog it describes: every
// namespace, method and name an example shows is one the code really has, in single-server mode
// (`tools.echo`, `echo({...})`) as with several servers (`notes.search`, `notes__search({...})`).
// A model copies what it reads; an example naming a tool the catalog lacks is a mistake handed
// to it. Each example's arguments are the tool's required ones, with a value of the type the
// schema asks, so a copied call passes the check before the run. Of the server's text an example
// carries identifiers only (names, plain enum words): the description stays free of a server's
// prose even when it shows only the index, and a parameter named otherwise is no example.
import type { CatalogTool } from "./catalog-types.js";
import {
  isJsonObject,
  own,
  quote,
  requiredNames,
  UNION_SHOWN_MAX,
  type JsonObject,
} from "./schema-render.js";
import { keywordFor } from "./tool-signature.js";

/** What an example needs of a tool. */
export type ExampleTool = Pick<
  CatalogTool,
  "pyName" | "namespace" | "method" | "private" | "deprecated" | "inputSchema"
>;

export interface RunPythonExamples {
  /** `r = await notes.search(query="...")`: run as written by docs/examples.docker.test.ts. */
  call: string;
  /** `import asyncio; a, b = await asyncio.gather(...)`: run as written too. */
  gather: string;
  /** `notes__search({"query": "..."})`: the dict form (a reference: it awaits nothing). */
  dictCall: string;
  /** `notes.search`: the key TOOLS shows the tool's stub under. */
  lookup: string;
}

/** Only this many tools (in catalog order) are weighed as the examples' tool. */
export const EXAMPLE_CANDIDATES_MAX = 50;

/** An example call longer than this is passed over for a shorter one. */
export const EXAMPLE_CALL_MAX_CHARS = 80;

/** Required arguments an example shows at most; a tool needing more is a last resort. */
const EXAMPLE_ARGS_MAX = 3;

/** An enum's string is an example value when it is a plain word of at most this length. */
const EXAMPLE_LITERAL_MAX_CHARS = 24;

const PLAIN_WORD = /^[A-Za-z0-9_-]+$/;

/** How deep an example value looks through anyOf/oneOf and type lists. */
const EXAMPLE_VALUE_DEPTH = 3;

/** A Python literal of a JSON scalar, or null when it is none, or a string but no plain word. */
function pythonLiteral(value: unknown): string | null {
  if (typeof value === "string")
    return value.length <= EXAMPLE_LITERAL_MAX_CHARS && PLAIN_WORD.test(value)
      ? quote(value)
      : null;
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : null;
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null) return "None";
  return null;
}

const TYPE_VALUES: Readonly<Record<string, string>> = {
  string: '"..."',
  integer: "1",
  number: "1",
  boolean: "True",
  array: "[]",
  object: "{}",
};

/**
 * A value of the type a parameter's schema asks, as Python: its first enum value, its const,
 * `"..."` for a string, `1` for a number; null when the schema says nothing plain enough.
 */
function exampleValue(node: unknown, depth = 0): string | null {
  if (!isJsonObject(node) || depth > EXAMPLE_VALUE_DEPTH) return null;
  if (Object.hasOwn(node, "const")) return pythonLiteral(own(node, "const"));
  const values = own(node, "enum");
  if (Array.isArray(values)) {
    const first: unknown = (values as unknown[]).find((v) => v !== null);
    return first === undefined ? null : pythonLiteral(first);
  }
  for (const key of ["anyOf", "oneOf"]) {
    const alternatives = own(node, key);
    if (!Array.isArray(alternatives)) continue;
    for (const alternative of alternatives.slice(0, UNION_SHOWN_MAX)) {
      const value = exampleValue(alternative, depth + 1);
      if (value !== null && value !== "None") return value;
    }
    return null;
  }
  const type = own(node, "type");
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  for (const t of types)
    if (typeof t === "string" && Object.hasOwn(TYPE_VALUES, t)) return TYPE_VALUES[t] ?? null;
  if (isJsonObject(own(node, "properties"))) return "{}";
  return null;
}

/**
 * `query="...", limit=1` and `{"query": "...", "limit": 1}` of a tool's required parameters;
 * null when one is not passed as a plain keyword (`from_=` is one) or has no plain value.
 */
function exampleArguments(schema: JsonObject): { keywords: string; dict: string } | null {
  const properties = own(schema, "properties");
  const declared = isJsonObject(properties) ? properties : {};
  const names = [...requiredNames(schema)];
  if (names.length > EXAMPLE_ARGS_MAX) return null;
  const keywords: string[] = [];
  const dict: string[] = [];
  const known = new Set(Object.keys(declared));
  for (const name of names) {
    const keyword = known.has(name) ? keywordFor(name, known) : null;
    const value = exampleValue(declared[name]);
    if (keyword === null || value === null) return null;
    keywords.push(`${keyword}=${value}`);
    dict.push(`${quote(name)}: ${value}`);
  }
  return { keywords: keywords.join(", "), dict: `{${dict.join(", ")}}` };
}

interface Candidate {
  tool: ExampleTool & { method: string };
  call: string;
  dict: string;
  /**
   * Lower is better: a tool that is not private (an example must not teach the code to lock
   * itself to private tools), then one shown with its arguments, then a current one, then one
   * that takes arguments (so the example shows keywords).
   */
  rank: number;
}

function candidate(tool: ExampleTool): Candidate | null {
  const method = tool.method;
  if (method === null) return null;
  const name = `${tool.namespace}.${method}`;
  const args = exampleArguments(tool.inputSchema);
  const call = args === null ? "" : `${name}(${args.keywords})`;
  // A last resort: the call without its arguments, which the check before the run answers with
  // the tool's signature.
  const bare = args === null || call.length > EXAMPLE_CALL_MAX_CHARS;
  const rank =
    (tool.private ? 8 : 0) +
    (bare ? 4 : 0) +
    (tool.deprecated ? 2 : 0) +
    (bare || args.keywords === "" ? 1 : 0);
  return bare
    ? { tool: { ...tool, method }, call: `${name}()`, dict: "{}", rank }
    : { tool: { ...tool, method }, call, dict: args.dict, rank };
}

/**
 * The examples for a catalog: its best example tool's call (an everyday tool that takes a few
 * arguments), and the next best beside it in the parallel one. null for a catalog without a
 * tool the code calls as a method.
 */
export function runPythonExamples(tools: readonly ExampleTool[]): RunPythonExamples | null {
  const ranked: Candidate[] = [];
  for (const tool of tools.slice(0, EXAMPLE_CANDIDATES_MAX)) {
    const found = candidate(tool);
    if (found !== null) ranked.push(found);
  }
  // Stable: equal ranks keep the catalog's order.
  ranked.sort((a, b) => a.rank - b.rank);
  const best = ranked[0];
  if (best === undefined) return null;
  // Beside a tool that is not private, never a private one: its call would hold the first's.
  const second = ranked[1];
  const next = second !== undefined && second.tool.private === best.tool.private ? second : best;
  return {
    call: `r = await ${best.call}`,
    gather: `import asyncio; a, b = await asyncio.gather(${best.call}, ${next.call})`,
    dictCall: `${best.tool.pyName}(${best.dict})`,
    lookup: `${best.tool.namespace}.${best.tool.method}`,
  };
}
