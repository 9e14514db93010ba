import type { ServerTools } from "../catalog/catalog-types.js";
import type { ServersConfig } from "../servers/server-config-types.js";
import type { ServerSet } from "../servers/server-set.js";
import { sameLaunch } from "../servers/same-launch.js";
import type { ToolPins } from "../pins/tool-pins.js";

/**
 * The catalog's input: each server's listed tools under the config's policy. A server whose
 * command changes keeps no tools until its new process lists them. With `pins`, each listing
 * is observed against them and the tools held for review are marked (the catalog leaves them
 * out); the config's own check before a save passes none.
 */
export function catalogInput(
  servers: Pick<ServerSet, "get">,
  config: ServersConfig,
  pins?: Pick<ToolPins, "observe">,
): ServerTools[] {
  return [...config.servers].map(([name, entry]) => {
    const live = servers.get(name);
    const current = live && sameLaunch(live.entry, entry) ? live : null;
    const tools = current ? [...current.tools] : [];
    const held = pins && current ? pins.observe(name, current.forms) : undefined;
    return { server: name, tools, allow: entry.allow, private: entry.private, held };
  });
}
