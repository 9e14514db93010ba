import type { CatalogTool } from "./catalog-types.js";
import { PRIVATE_MARK } from "./tool-stub.js";

// The compact index the run_python description carries once the catalog is too big for full
// stubs: one line per server with its tool count and as many tool names as the budget holds.
// The model pays for these characters in every conversation, so their number is bounded by
// the budget whatever the catalog's size; stubs, schemas and descriptions are looked up from
// inside the code (TOOLS, search_tools), where they cost the model nothing until it asks.

interface Group {
  /** `- everything (11 tools):`, or `- "my-server" as my_server (2 tools):` */
  head: string;
  /** The methods the code calls (`echo`, as `everything.echo`), private ones marked. */
  names: string[];
  shown: string[];
}

/** ` +N more` for `count` names left out of a line. */
function moreTail(count: number): string {
  return ` +${count} more`;
}

function groupsOf(tools: readonly CatalogTool[]): Group[] {
  const byServer = new Map<string, CatalogTool[]>();
  for (const tool of tools) {
    const list = byServer.get(tool.server);
    if (list === undefined) byServer.set(tool.server, [tool]);
    else list.push(tool);
  }
  return [...byServer].map(([server, list]) => ({
    head: `- ${serverLabel(server, list)} (${list.length} tool${list.length === 1 ? "" : "s"}):`,
    names: list.map((t) => {
      // A tool without a method is called by its own name, which the line shows whole.
      const name = t.method ?? t.pyName;
      return t.private ? `${name} ${PRIVATE_MARK}` : name;
    }),
    shown: [],
  }));
}

/**
 * The server as its line names it: its namespace alone when that is its name, else its name
 * (quoted: it is the server's text) and the namespace the code uses.
 */
function serverLabel(server: string, tools: readonly CatalogTool[]): string {
  const namespace = tools[0]?.namespace ?? server;
  return namespace === server ? server : `${JSON.stringify(server)} as ${namespace}`;
}

/**
 * The index's first line. Its call form names a real method (`tools.echo` with one server,
 * whose tools are not under the server's name), never a pattern the code could take literally.
 */
function leadLine(tools: readonly CatalogTool[], servers: number): string {
  const example = tools.find((t) => t.method !== null);
  const call =
    example === undefined ? "" : `called as ${example.namespace}.${example.method ?? ""}(...); `;
  return (
    `Index, server: tools (${tools.length} on ${servers} server${servers === 1 ? "" : "s"}; ` +
    `${call}look one up first):`
  );
}

function groupLine(group: Group): string {
  const hidden = group.names.length - group.shown.length;
  const names = group.shown.length === 0 ? "" : ` ${group.shown.join(", ")}`;
  return group.head + names + (hidden > 0 ? moreTail(hidden) : "");
}

/**
 * The index: a lead line, then one line per server with its names, filled a name per server
 * in turn so that every server shows some while the budget lasts. A name that does not fit is
 * counted in its line's `+N more`. Lines of servers past the budget become one last line. The
 * whole stays within `budget` unless the budget is smaller than the lead line alone.
 */
export function renderToolIndex(tools: readonly CatalogTool[], budget: number): string {
  const groups = groupsOf(tools);
  const lead = leadLine(tools, groups.length);

  // Server lines while their heads (and the longest tail each can get) fit, keeping room for
  // a last line that counts the servers left over.
  let room = budget - lead.length;
  const kept: Group[] = [];
  for (const [i, group] of groups.entries()) {
    const left = groups.length - i - 1;
    const overflow = left > 0 ? `\n- +${left} more servers`.length : 0;
    const cost = 1 + group.head.length + moreTail(group.names.length).length;
    if (cost + overflow > room) break;
    kept.push(group);
    room -= cost;
  }
  const leftOver = groups.length - kept.length;
  if (leftOver > 0) room -= `\n- +${leftOver} more servers`.length;

  // Names, one per server in turn. A name's cost is its text and its separator (", " or the
  // space after the head); the tail was reserved at its longest.
  const longest = Math.max(0, ...kept.map((g) => g.names.length));
  for (let i = 0; i < longest; i++) {
    for (const group of kept) {
      const name = group.names[i];
      if (name === undefined) continue;
      const cost = name.length + (group.shown.length === 0 ? 1 : 2);
      if (cost > room) continue;
      group.shown.push(name);
      room -= cost;
    }
  }

  const lines = [lead, ...kept.map(groupLine)];
  if (leftOver > 0) lines.push(`- +${leftOver} more servers`);
  return lines.join("\n");
}
