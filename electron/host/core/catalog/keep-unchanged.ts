import { heldToolMessage } from "./catalog-builder.js";
import type { Catalog, CatalogTool, ServerTools } from "./catalog-types.js";

/**
 * What stays of the last good catalog when a live rebuild from `input` fails (a clash, an
 * allow entry or private label naming a tool the server no longer lists): only the tools
 * their server still lists as they were (the same definition, by its hash), not held for
 * review, still admitted by the pins and by the allow list, and private or not as before. The rest are out until the catalog builds again, held
 * ones with the held message: a failed rebuild must not keep callable a definition the pins
 * now hold, nor a tool its server dropped. The last catalog itself when nothing is taken out.
 */
export function keepUnchanged(last: Catalog, input: readonly ServerTools[]): Catalog {
  const entries = new Map(input.map((entry) => [entry.server, entry]));
  const listings = new Map<string, Map<string, string | undefined>>();
  const listing = (entry: ServerTools): Map<string, string | undefined> => {
    let byName = listings.get(entry.server);
    if (byName === undefined) {
      byName = new Map(entry.tools.map((tool) => [tool.name, tool.hash]));
      listings.set(entry.server, byName);
    }
    return byName;
  };
  const held = new Map(last.held ?? []);
  const heldMethods = new Map(last.heldMethods ?? []);
  const stays = (tool: CatalogTool): boolean => {
    const entry = entries.get(tool.server);
    if (entry === undefined) return false;
    if (entry.held?.has(tool.tool) === true) {
      held.set(tool.pyName, heldToolMessage(tool.pyName, tool.server, tool.tool));
      if (tool.method !== null)
        heldMethods.set(tool.pyName, { namespace: tool.namespace, method: tool.method });
      return false;
    }
    const byName = listing(entry);
    if (!byName.has(tool.tool) || byName.get(tool.tool) !== tool.hash) return false;
    if (entry.allow !== null && !entry.allow.includes(tool.tool)) return false;
    const isPrivate =
      typeof entry.private === "boolean" ? entry.private : entry.private.includes(tool.tool);
    if (isPrivate !== tool.private) return false;
    return entry.pinned === undefined || entry.pinned.get(tool.tool) === tool.hash;
  };
  const tools = last.tools.filter(stays);
  if (tools.length === last.tools.length) return last;
  return {
    ...last,
    tools,
    byPyName: new Map(tools.map((tool) => [tool.pyName, tool])),
    held,
    heldMethods,
  };
}
