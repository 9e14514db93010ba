// Whether a config asks the user before a call to a tool: the one reading of an entry's "ask".
import type { ServerEntry, ServersConfig } from "../ports/server-config-types.js";

export function asksFirst(entry: ServerEntry | undefined, tool: string): boolean {
  const ask = entry?.ask ?? false;
  return ask === true || (Array.isArray(ask) && ask.includes(tool));
}

/** The same question of a whole config, by server name. */
export function configAsksFirst(config: ServersConfig, server: string, tool: string): boolean {
  return asksFirst(config.servers.get(server), tool);
}
