// Drives `codemode serve` the way an MCP client does: the SDK's Client over a
// StdioClientTransport that spawns `node bin/codemode.js serve ...`. The e2e tests and
// the concurrency bench share it, so spawning, connecting and cleaning up live in one place.

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type Dockerode from "dockerode";
import type { RunResult } from "../shared/run-result.js";
import { installContainers } from "./docker.js";
import { startMcpSession, type McpSession } from "./mcp-session.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";
import {
  assertBuilt,
  childEnv,
  CODEMODE_BIN,
  processIsAlive,
  repoRoot,
  waitForExit,
} from "./processes.js";
import { tempDir } from "./temp-dir.js";

export { CODEMODE_BIN };

const root = repoRoot;

/** The published server-everything, started as `node <bin> stdio`. */
export const EVERYTHING_BIN = path.join(
  root,
  "node_modules",
  "@modelcontextprotocol",
  "server-everything",
  "dist",
  "index.js",
);

/** `node toy-server.js`, as a command line for `serve -- ...` or a config entry. */
export const TOY_COMMAND: readonly string[] = [process.execPath, TOY_SERVER_JS];

export { assertBuilt as assertServeBuilt };

/** A fresh CODEMODE_HOME. */
export function tempHome(prefix = "codemode-serve-"): { home: string } {
  return { home: tempDir(prefix) };
}

/** Only what serve needs of this environment: it must not inherit the test runner's. */
const serveEnv = childEnv;

export interface ServeOptions {
  /** Everything after `serve`. */
  args: string[];
  /** Extra environment for the serve process (CODEMODE_HOME is set already). */
  env?: Record<string, string>;
  /** Reuse a data directory (default: a fresh temporary one). */
  home?: string;
}

/** Starts `codemode serve ...` under a real MCP client and connects. */
export async function startServe(options: ServeOptions): Promise<McpSession> {
  const home = options.home ?? tempHome().home;
  return startMcpSession({
    args: ["serve", ...options.args],
    home,
    env: serveEnv(home, options.env ?? {}),
    what: "serve",
  });
}

export { processIsAlive, waitForExit };

export interface ServeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `codemode serve ...` with stdin held open and waits for it to exit on its own: for
 * startup failures, which must end the process with a message before any MCP traffic.
 */
export function serveUntilExit(
  options: ServeOptions & { timeoutMs?: number },
): Promise<ServeExit & { pid: number }> {
  const home = options.home ?? tempHome().home;
  const child = spawn(process.execPath, [CODEMODE_BIN, "serve", ...options.args], {
    env: serveEnv(home, options.env ?? {}),
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`serve did not exit within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid: child.pid ?? -1 });
    });
  });
}

/** Sandbox containers of one data directory, whoever started them. */
export async function sandboxContainers(docker: Dockerode, home: string): Promise<string[]> {
  return (await installContainers(docker, home)).map((c) => c.Id);
}

/** Writes an mcpServers file into a new temporary directory; returns its path. */
export function writeConfig(servers: Record<string, unknown>, raw?: string): string {
  const dir = tempDir("codemode-config-");
  const file = path.join(dir, "servers.json");
  writeFileSync(file, raw ?? JSON.stringify({ mcpServers: servers }, null, 2));
  return file;
}

/** A config entry that starts the toy server with the given environment and options. */
export function toyEntry(
  env: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const [command, ...args] = TOY_COMMAND;
  return { command, args, env, ...extra };
}

/** A fresh TOY_CALL_LOG file (empty) and a reader of its lines. */
export function callLog(): { file: string; calls(): { tool: string; args: unknown }[] } {
  const dir = tempDir("codemode-calls-");
  const file = path.join(dir, "calls.jsonl");
  writeFileSync(file, "");
  return {
    file,
    calls: () =>
      readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { tool: string; args: unknown }),
  };
}

const requireHere = createRequire(import.meta.url);

export interface InlineServerOptions {
  /**
   * A JavaScript expression over `request` (a tools/call request) for the call's result.
   * Default: `called <name>` as text.
   */
  onCall?: string;
  /**
   * Keep running after stdin ends, as many real servers do: only a signal stops it. For
   * proving that serve itself closes the servers it started, rather than their noticing
   * serve went away.
   */
  lingerAfterStdinEnd?: boolean;
}

/**
 * A command line for a small stdio MCP server written inline: `toolsExpression` is a
 * JavaScript expression (evaluated in the server) for its `tools/list` answer, so tests can
 * serve hostile or generated tool lists without a file of their own. In its environment,
 * INLINE_PID_FILE receives its pid at start.
 */
export function inlineServerCommand(
  toolsExpression: string,
  options: InlineServerOptions = {},
): string[] {
  const sdk = (sub: string): string =>
    pathToFileURL(requireHere.resolve(`@modelcontextprotocol/sdk/${sub}`)).href;
  const onCall =
    options.onCall ?? '({ content: [{ type: "text", text: "called " + request.params.name }] })';
  const end = options.lingerAfterStdinEnd
    ? "setInterval(() => undefined, 60_000);"
    : 'process.stdin.on("end", () => process.exit(0));';
  const script = `
import { writeFileSync } from "node:fs";
import { Server } from ${JSON.stringify(sdk("server/index.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdk("server/stdio.js"))};
import { CallToolRequestSchema, ListToolsRequestSchema } from ${JSON.stringify(sdk("types.js"))};
if (process.env.INLINE_PID_FILE) writeFileSync(process.env.INLINE_PID_FILE, String(process.pid));
const tools = (${toolsExpression});
const server = new Server({ name: "inline", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => (${onCall}));
await server.connect(new StdioServerTransport());
${end}
`;
  return [process.execPath, "--input-type=module", "-e", script];
}

/**
 * Python helpers the tests prepend to their code. `attempt` turns a call's outcome into a
 * string. `forged` and `forged_raw` make calls the runner's own tool functions would never
 * send (unknown names, oversized or non-object arguments) with the runner's own machinery,
 * reached through a real tool's globals and closure: code in the sandbox can always do
 * this, so every check must hold in the bridge on the host, not in the runner.
 */
export const PY_PRELUDE = `
import asyncio, json

async def attempt(call):
    try:
        return "ok: " + await call
    except ToolError as error:
        return "ToolError: " + str(error)

def _runner_host():
    tool = globals()[next(iter(TOOLS))]
    return tool, tool.__closure__[tool.__code__.co_freevars.index("host")].cell_contents

def forged(name, lift_size_check=False):
    tool, host = _runner_host()
    if lift_size_check:
        host.args_max_bytes = 10**9
    return tool.__globals__["_make_tool"](host, name, "")

async def forged_raw(name, args_json):
    _, host = _runner_host()
    future = asyncio.get_running_loop().create_future()
    call_id = host.register_call(future)
    host.send_json('{"type":"call","id":%d,"tool":%s,"args":%s}' % (call_id, json.dumps(name), args_json))
    return await future
`;

/**
 * Runs `PY_PRELUDE + code` and returns the JSON the code printed last. Fails, showing the
 * whole result, when the code raised or printed no JSON.
 */
export async function runJson<T = Record<string, unknown>>(
  session: McpSession,
  code: string,
  extra: { timeout_s?: number; stdin?: string } = {},
): Promise<{ value: T; result: RunResult }> {
  const result = await session.run(`${PY_PRELUDE}\n${code}`, extra);
  const lines = result.stdout.trimEnd().split("\n");
  const last = lines[lines.length - 1] ?? "";
  if (result.error !== null || result.exit_code !== 0) {
    throw new Error(`the code failed: ${JSON.stringify(result, null, 2)}`);
  }
  try {
    return { value: JSON.parse(last) as T, result };
  } catch {
    throw new Error(`the code printed no JSON: ${JSON.stringify(result, null, 2)}`);
  }
}
