import type { ServerTools } from "../catalog/catalog-types.js";
import type { ServersConfig } from "../servers/server-config-types.js";
import type { ServerSet } from "../servers/server-set.js";
import { sameLaunch } from "../servers/same-launch.js";

/**
 * The catalog's input: each server's listed tools under the config's policy. A server whose
 * command changes keeps no tools until its new process lists them.
 */
export function catalogInput(
  servers: Pick<ServerSet, "get">,
  config: ServersConfig,
): ServerTools[] {
  return [...config.servers].map(([name, entry]) => {
    const live = servers.get(name);
    const tools = live && sameLaunch(live.entry, entry) ? [...live.tools] : [];
    return { server: name, tools, allow: entry.allow, private: entry.private };
  });
}
