// A real MCP client (the SDK's Client) on a `codemode` subcommand's stdio: the one client
// session of the tests. The `serve` tests and the shim tests both drive it, so spawning,
// listening, calling and ending live once.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { runFailed, runResultIn, type RunResult } from "../shared/run-result.js";
import { CODEMODE_BIN, repoRoot, waitForExit } from "./processes.js";

export interface McpSession {
  client: Client;
  /** The CODEMODE_HOME the process runs with. */
  home: string;
  /** Pid of the spawned `codemode` process. */
  pid: number;
  /** Everything it wrote to stderr so far. */
  stderr: () => string;
  /** How many `notifications/tools/list_changed` the client received. */
  listChangedCount: () => number;
  /** The run_python description as the client lists it now. */
  description: () => Promise<string>;
  /** Calls a tool with any arguments and returns the raw result (for input errors). */
  callTool: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
  /**
   * Calls run_python; its result from `_meta` (a run that raised or was stopped too: it is
   * marked isError and still carries its result). A tool error without one (invalid input, a
   * run refused before it started) rejects with its text.
   */
  run: (code: string, extra?: { timeout_s?: number; stdin?: string }) => Promise<RunResult>;
  /** Resolves when the process has gone. */
  exited: Promise<void>;
  /** The process's exit status (null if a signal ended it). */
  exitCode: Promise<number | null>;
  /** Closes the client (which ends the process's stdin) and waits until the process has exited. */
  close: () => Promise<void>;
  /** SIGKILLs the process: the client vanishes without a goodbye. */
  kill: () => Promise<void>;
}

/** How long close() and kill() wait for the process to go. */
const EXIT_TIMEOUT_MS = 15_000;

function withinExitTimeout(exited: Promise<void>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    exited,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${EXIT_TIMEOUT_MS} ms: ${what} to exit`)),
        EXIT_TIMEOUT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

export async function startMcpSession(options: {
  /** Everything after `codemode`. */
  args: string[];
  /** The CODEMODE_HOME that `env` names. */
  home: string;
  env: Record<string, string>;
  clientInfo?: { name: string; version: string };
  /** For the error when it does not start: "serve", "the shim". */
  what: string;
  /** What the client declares at initialize (elicitation, say); none by default. */
  capabilities?: ClientCapabilities;
  /** Another built checkout whose `codemode` to run; this one unless said. */
  checkout?: string | undefined;
}): Promise<McpSession> {
  const bin = options.checkout ? path.join(options.checkout, "bin", "codemode.js") : CODEMODE_BIN;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, ...options.args],
    env: options.env,
    cwd: options.checkout ?? repoRoot,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client(
    options.clientInfo ?? { name: "codemode-e2e", version: "1.0.0" },
    options.capabilities ? { capabilities: options.capabilities } : undefined,
  );
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged += 1;
  });
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new Error(`${options.what} did not start: ${String(error)}\n${stderr}`);
  }
  const pid = transport.pid;
  if (pid === null) throw new Error(`${options.what} has no pid`);
  // The SDK keeps the child to itself; its exit status is how a test sees a clean or failed exit.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  const exitCode = new Promise<number | null>((resolve) => {
    if (child === undefined || child.exitCode !== null) resolve(child?.exitCode ?? null);
    else child.once("exit", (code: number | null) => resolve(code));
  });
  const exited = new Promise<void>((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
  });
  const callTool = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool(
      { name, arguments: args },
      undefined,
      // The run's own deadline (at most 90 s) ends it; the client must not give up first.
      { timeout: 120_000 },
    )) as CallToolResult;
  return {
    client,
    home: options.home,
    pid,
    stderr: () => stderr,
    listChangedCount: () => listChanged,
    description: async () => {
      const { tools } = await client.listTools();
      const tool = tools.find((t: Tool) => t.name === "run_python");
      if (tool === undefined) throw new Error(`${options.what} lists no run_python`);
      return tool.description ?? "";
    },
    callTool,
    run: async (code, extra = {}) => {
      const result = await callTool("run_python", { code, ...extra });
      const run = runResultIn(result);
      if (run === undefined) {
        throw new Error(
          result.isError === true
            ? `run_python returned a tool error: ${JSON.stringify(result.content)}`
            : `${options.what}: run_python returned no result in _meta`,
        );
      }
      if ((result.isError === true) !== runFailed(run)) {
        throw new Error(`run_python: isError ${String(result.isError)} for ${JSON.stringify(run)}`);
      }
      return run;
    },
    exited,
    exitCode,
    close: async () => {
      await client.close().catch(() => undefined);
      await withinExitTimeout(exited, `${options.what} (pid ${pid})`);
      await waitForExit(pid, EXIT_TIMEOUT_MS);
    },
    kill: async () => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      await withinExitTimeout(exited, `${options.what} (pid ${pid})`);
    },
  };
}
