import type { ClientSnippets } from "../../../shared/api/api-views.js";

/** How an MCP client starts the shim of this install. */
export interface ShimLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export const MCP_ENTRY_NAME = "codemode";

export function mcpServersEntry(launch: ShimLaunch): Record<string, unknown> {
  return {
    command: launch.command,
    args: launch.args,
    ...(Object.keys(launch.env).length ? { env: launch.env } : {}),
  };
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'"'"'`)}'`;
}

/** Ready-to-paste configuration for the clients people use, all starting the same shim. */
export function clientSnippets(launch: ShimLaunch): ClientSnippets {
  const entry = mcpServersEntry(launch);
  const mcpServers = JSON.stringify({ mcpServers: { [MCP_ENTRY_NAME]: entry } }, null, 2);
  const vscode = JSON.stringify(
    { servers: { [MCP_ENTRY_NAME]: { type: "stdio", ...entry } } },
    null,
    2,
  );
  const envFlags = Object.entries(launch.env).flatMap(([k, v]) => ["-e", shellQuote(`${k}=${v}`)]);
  // The name goes before any -e: `-e` takes several values, so a name after it is read as
  // one more K=V and the command fails (tested with the real `claude` CLI).
  const claudeCode = [
    "claude",
    "mcp",
    "add",
    MCP_ENTRY_NAME,
    ...envFlags,
    "--",
    shellQuote(launch.command),
    ...launch.args.map(shellQuote),
  ].join(" ");
  return { claudeDesktop: mcpServers, cursor: mcpServers, vscode, claudeCode };
}
