import type { ClientSnippets, HttpClientSnippets } from "../../../../shared/api/api-views.js";
import { TOKEN_HEADER_ARGS } from "../../util/token-header-args.js";

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

const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** Where MCP over HTTP listens while it is on, and the token every request must carry. */
export interface HttpEndpoint {
  url: string;
  token: string;
}

/**
 * The shell command that prints the token's HTTP header (`codemode token header`), made from
 * how clients start the shim: the same program and environment, `token header` in place of
 * `shim`. Environment values are quoted on their own, so each stays an assignment for sh.
 */
export function tokenHeaderCommand(launch: ShimLaunch): string {
  const args = launch.args.at(-1) === "shim" ? launch.args.slice(0, -1) : launch.args;
  const env = Object.entries(launch.env).map(([name, value]) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`bad environment name ${name}`);
    return `${name}=${shellQuote(value)}`;
  });
  return [...env, shellQuote(launch.command), ...args.map(shellQuote), ...TOKEN_HEADER_ARGS].join(
    " ",
  );
}

/**
 * HTTP entries for the clients that connect to a URL instead of starting the shim: the
 * address and the install's token as an `Authorization: Bearer` header, in the shape each
 * client reads (keys as each client documents them; the Claude Code command is run with
 * the real `claude` CLI by e2e/real-clients.e2e.test.ts).
 *
 * The command a user runs never carries the token: any local user can read a process's
 * arguments. Claude Code gets it from a `headersHelper` (a command it runs when it connects,
 * printing the header from the 0600 token file); the JSON entries go into the user's own files.
 */
export function httpClientSnippets(endpoint: HttpEndpoint, launch: ShimLaunch): HttpClientSnippets {
  const headers = { Authorization: `Bearer ${endpoint.token}` };
  const entry = { type: "http", url: endpoint.url, headersHelper: tokenHeaderCommand(launch) };
  // User scope: Claude Code runs a headers helper of a project or local entry only once the
  // folder is trusted, and the entry should be there in every folder anyway.
  const claudeCode = [
    "claude",
    "mcp",
    "add-json",
    "--scope",
    "user",
    MCP_ENTRY_NAME,
    shellQuote(JSON.stringify(entry)),
  ].join(" ");
  return {
    url: endpoint.url,
    token: endpoint.token,
    claudeCode,
    // Cursor: ~/.cursor/mcp.json or .cursor/mcp.json; an entry with a `url` is remote.
    cursor: json({ mcpServers: { [MCP_ENTRY_NAME]: { url: endpoint.url, headers } } }),
    // VS Code: .vscode/mcp.json or the user's mcp.json, under `servers`, with a type.
    vscode: json({ servers: { [MCP_ENTRY_NAME]: { type: "http", url: endpoint.url, headers } } }),
    // Gemini CLI: settings.json; `httpUrl` is Streamable HTTP (its `url` means SSE).
    gemini: json({ mcpServers: { [MCP_ENTRY_NAME]: { httpUrl: endpoint.url, headers } } }),
  };
}

/**
 * Ready-to-paste configuration for the clients people use, all starting the same shim, and
 * their HTTP entries while MCP over HTTP is on (`http` null when it is off).
 */
export function clientSnippets(
  launch: ShimLaunch,
  http: HttpEndpoint | null = null,
): ClientSnippets {
  const entry = mcpServersEntry(launch);
  const mcpServers = json({ mcpServers: { [MCP_ENTRY_NAME]: entry } });
  const vscode = json({ servers: { [MCP_ENTRY_NAME]: { type: "stdio", ...entry } } });
  const envFlags = Object.entries(launch.env).flatMap(([k, v]) => ["-e", shellQuote(`${k}=${v}`)]);
  // The name goes before any -e: `-e` takes several values, so a name after it is read as
  // one more K=V and the command fails (tested with the real `claude` CLI). User scope, as
  // for Gemini CLI below: Claude Code's default (local) keeps the entry to the folder the
  // command ran in, so Code Mode was missing in every other project.
  const claudeCode = [
    "claude",
    "mcp",
    "add",
    "--scope",
    "user",
    MCP_ENTRY_NAME,
    ...envFlags,
    "--",
    shellQuote(launch.command),
    ...launch.args.map(shellQuote),
  ].join(" ");
  // Gemini CLI's -e takes several values too, and it has no `--` before the command: the
  // name, command and args go first, the -e flags last (tested with the real `gemini`).
  // User scope, so Code Mode is there in every folder the user trusts.
  const gemini = [
    "gemini",
    "mcp",
    "add",
    "--scope",
    "user",
    MCP_ENTRY_NAME,
    shellQuote(launch.command),
    ...launch.args.map(shellQuote),
    ...envFlags,
  ].join(" ");
  return {
    claudeDesktop: mcpServers,
    cursor: mcpServers,
    vscode,
    claudeCode,
    gemini,
    http: http ? httpClientSnippets(http, launch) : null,
  };
}
