import type { SandboxTool } from "../ports/run-types.js";
import { freezeTools } from "../ports/tools-json.js";
import type { Catalog, CatalogTool } from "./catalog-types.js";
import { MiB } from "../../util/units.js";

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
    const shown: SandboxTool = {
      name: tool.pyName,
      stub: tool.stub,
      description: tool.description,
      schema,
      ...(tool.method === null ? {} : { namespace: tool.namespace, method: tool.method }),
    };
    return tool.deprecated ? { ...shown, deprecated: true } : shown;
  });
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
