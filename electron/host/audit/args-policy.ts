// Whether a tool's arguments stay out of the audit log: the one reading of an entry's
// "hideArgs". Arguments say where data was (a path, a query, a recipient), not the data, so
// they are logged for private tools too, secrets masked; a tool whose arguments are themselves
// sensitive (a note's text, a message body) is marked to hide them.
import type { ServerEntry, ServersConfig } from "../core/ports/server-config-types.js";

export function hidesArgs(entry: ServerEntry | undefined, tool: string): boolean {
  const hide = entry?.hideArgs ?? false;
  return hide === true || (Array.isArray(hide) && hide.includes(tool));
}

/** The same question of a whole config, by server name and the server's own tool name. */
export function configHidesArgs(config: ServersConfig, server: string, tool: string): boolean {
  return hidesArgs(config.servers.get(server), tool);
}
