import type { SandboxTool } from "../ports/run-types.js";
import { freezeTools } from "../ports/tools-json.js";
import type { Catalog, CatalogTool } from "./catalog-types.js";
import { MiB } from "../../util/units.js";
import { isJsonObject, own } from "./schema-render.js";
import { keywordFor } from "./tool-signature.js";

/** ...and schemas go out only until they reach this total, as every run's start carries them. */
export const SCHEMAS_SHOWN_TOTAL_BYTES = 1 * MiB;

/**
 * The catalog as every run's start line carries it to the sandbox (TOOLS, search_tools):
 * name, stub, description and input schema of each tool. Schemas go out in catalog order until
 * they reach SCHEMAS_SHOWN_TOTAL_BYTES; later ones go out as null, so a catalog
 * of thousands of big schemas cannot make every run's start megabytes long. Each tool's stub
 * still lists its parameters.
 */
export function sandboxTools(tools: readonly CatalogTool[]): SandboxTool[] {
  let left = SCHEMAS_SHOWN_TOTAL_BYTES;
  return tools.map((tool) => {
    let schema = tool.shownSchema;
    if (schema !== null) {
      const bytes = Buffer.byteLength(schema, "utf8");
      if (bytes <= left) left -= bytes;
      else schema = null;
    }
    const aliases = schema === null && tool.method !== null ? keywordAliases(tool) : null;
    const shown: SandboxTool = {
      name: tool.pyName,
      stub: tool.stub,
      description: tool.description,
      schema,
      ...(tool.method === null ? {} : { namespace: tool.namespace, method: tool.method }),
      ...(aliases === null ? {} : { keywords: aliases }),
    };
    return tool.deprecated ? { ...shown, deprecated: true } : shown;
  });
}

/**
 * The keywords of a tool's parameters that are not their names (`from_` for "from"), as the stub
 * shows them; null when there are none. The runner reads them from the schema, so they go out
 * only for a tool whose schema does not: without them `from_=` would be sent as "from_".
 */
function keywordAliases(tool: CatalogTool): Record<string, string> | null {
  const properties = own(tool.inputSchema, "properties");
  if (!isJsonObject(properties)) return null;
  const names = Object.keys(properties);
  const declared = new Set(names);
  let aliases: Record<string, string> | null = null;
  for (const name of names) {
    const keyword = keywordFor(name, declared);
    if (keyword === null || keyword === name) continue;
    aliases ??= {};
    aliases[keyword] = name;
  }
  return aliases;
}

const perCatalog = new WeakMap<Catalog, readonly SandboxTool[]>();

/**
 * sandboxTools of a catalog, made once per catalog (a catalog is never changed: a new one
 * replaces it) and frozen, so its JSON text is made once too (toolsJson): every run, and each
 * warm container's staged catalog, share it, and comparing them costs nothing.
 */
export function catalogSandboxTools(catalog: Catalog): readonly SandboxTool[] {
  let tools = perCatalog.get(catalog);
  if (tools === undefined) {
    tools = freezeTools(sandboxTools(catalog.tools));
    perCatalog.set(catalog, tools);
  }
  return tools;
}
