import type { ServerTools } from "../core/catalog/catalog-types.js";
import type { ServersConfig } from "../core/ports/server-config-types.js";
import type { ServerSet } from "./server-set.js";
import { sameLaunch } from "./same-launch.js";
import { hashedTools } from "./tool-listing.js";
import type { ToolPins } from "./pins/tool-pins.js";

/**
 * The catalog's input: each server's listed tools under the config's policy. A server whose
 * command changes keeps no tools until its new process lists them. With `pins`, each listing
 * is observed against them and the tools held for review are marked (the catalog leaves them
 * out); the config's own check before a save passes none.
 */
export function catalogInput(
  servers: Pick<ServerSet, "get">,
  config: ServersConfig,
  pins?: Pick<ToolPins, "observe" | "pinnedFor">,
): ServerTools[] {
  return [...config.servers].map(([name, entry]) => {
    const live = servers.get(name);
    const current = live && sameLaunch(live.entry, entry) ? live : null;
    const tools = current ? hashedTools(current.tools, current.forms) : [];
    const held = pins && current ? pins.observe(name, current.forms) : undefined;
    // With pins, a server not running (or not yet restarted) admits nothing either.
    const pinned = pins ? (current ? pins.pinnedFor(name) : new Map<string, string>()) : undefined;
    return { server: name, tools, allow: entry.allow, private: entry.private, held, pinned };
  });
}
