// A small, real MCP server over stdio that many tests start as a subprocess
// (`process.execPath` + the built `dist/test-servers/toy-server.js`). Every tool
// exists to prove one behaviour of the host: a call reaching the server, a timeout,
// a crash mid-call, a tool list that changes at run time, and so on.
//
// Knobs, all optional, read from the environment:
// - TOY_CALL_LOG=<file>: every tools/call is appended as one JSON line
//   `{"tool": name, "args": arguments}` before it runs, so a test can prove which
//   calls reached the server (and which were refused before going out).
// - TOY_START_DELAY_MS=<n>: wait n ms before anything else (slow starts, and a
//   failing start that comes after the other servers are up).
// - TOY_FAIL_START=1: write a line to stderr and exit(1) before connecting.
// - TOY_FAIL_START_IF=<file>: the same while that file exists (a server that crashes and then
//   cannot come back, for as long as a test wants).
// - TOY_TOOL_PREFIX=<p>: prefix for every tool name (name-clash tests).
// - TOY_PAGE_SIZE=<n>: answer tools/list in pages of n tools with `nextCursor`.
// - TOY_TOOLS_FILE=<file>: list exactly the tools in that JSON file instead (see
//   toy-tools-file.ts): read again on every tools/list, list_changed sent when it changes.
//
// The module also exports where its built file lives, so tests need no path logic
// of their own; the server only starts when the file is run as a program.

import { appendFileSync, existsSync, realpathSync, statSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

import { serveToolsFile } from "./toy-tools-file.js";

const thisFile = fileURLToPath(import.meta.url);

/**
 * Absolute path of the built toy server. Imported from the TypeScript source (vitest),
 * this points into `dist/`; imported from the built file, it is that file.
 */
export const TOY_SERVER_JS = thisFile.endsWith(".ts")
  ? resolve(dirname(thisFile), "..", "dist", "test-servers", "toy-server.js")
  : thisFile;

/**
 * Throws a clear error when the built toy server is missing or older than its source:
 * a stale build would make tests prove things about old code.
 */
export function assertToyServerBuilt(): void {
  if (!existsSync(TOY_SERVER_JS)) {
    throw new Error(`${TOY_SERVER_JS} is missing: run \`npx tsc -p tsconfig.build.json\` first`);
  }
  if (thisFile.endsWith(".ts") && statSync(thisFile).mtimeMs > statSync(TOY_SERVER_JS).mtimeMs) {
    throw new Error(
      `${TOY_SERVER_JS} is older than its source: run \`npx tsc -p tsconfig.build.json\``,
    );
  }
}

/** Depth of the `deep` tool's input schema: well past any "too deep to check" limit. */
export const TOY_DEEP_SCHEMA_LEVELS = 40;

/** The most bytes `big` will produce: enough for any result-size test, short of hurting the host. */
const BIG_MAX_BYTES = 64 * 1024 * 1024;

type Args = Record<string, unknown>;
type Handler = (args: Args, signal: AbortSignal) => Promise<CallToolResult> | CallToolResult;

interface ToyTool {
  tool: Tool;
  handler: Handler;
}

function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function intArg(args: Args, key: string): number {
  const value = args[key];
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw invalid(`"${key}" must be an integer`);
  }
  return value;
}

function stringArg(args: Args, key: string): string {
  const value = args[key];
  if (typeof value !== "string") throw invalid(`"${key}" must be a string`);
  return value;
}

function objectSchema(
  properties: Record<string, object>,
  required: string[],
  extra: Record<string, unknown> = {},
): Tool["inputSchema"] {
  return { type: "object", properties, required, ...extra };
}

/** `{type: object, properties: {next: ...}}` nested `levels` times around a string. */
function nestedSchema(levels: number): Tool["inputSchema"] {
  let inner: Record<string, unknown> = { type: "string" };
  for (let i = 1; i < levels; i++) {
    inner = { type: "object", properties: { next: inner } };
  }
  return { type: "object", properties: { next: inner } };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolveSleep, rejectSleep) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolveSleep();
    }, ms);
    // A cancelled call stops sleeping so the process is free to exit when its stdin closes.
    const onAbort = (): void => {
      clearTimeout(timer);
      rejectSleep(new Error("cancelled"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function stderrLine(line: string): void {
  // Synchronous on purpose: the lines before an exit(1) must reach the host.
  writeSync(2, `${line}\n`);
}

async function main(): Promise<void> {
  const startDelay = Number.parseInt(process.env.TOY_START_DELAY_MS ?? "", 10);
  if (startDelay > 0) await new Promise((resolveDelay) => setTimeout(resolveDelay, startDelay));
  const prefix = process.env.TOY_TOOL_PREFIX ?? "";
  const pageSize = Number.parseInt(process.env.TOY_PAGE_SIZE ?? "", 10);
  const callLog = process.env.TOY_CALL_LOG;

  if (process.env.TOY_FAIL_START === "1") {
    stderrLine("toy server: TOY_FAIL_START=1, giving up before connecting");
    process.exit(1);
  }
  const failIf = process.env.TOY_FAIL_START_IF;
  if (failIf !== undefined && existsSync(failIf)) {
    stderrLine("toy server: TOY_FAIL_START_IF names a file that exists, giving up");
    process.exit(1);
  }

  const toolsFile = process.env.TOY_TOOLS_FILE;
  if (toolsFile !== undefined && toolsFile !== "") {
    await serveToolsFile(toolsFile, stderrLine);
    return;
  }

  const server = new Server(
    { name: "toy-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );

  const tools = new Map<string, ToyTool>();
  const define = (tool: Omit<Tool, "name"> & { name: string }, handler: Handler): void => {
    const name = prefix + tool.name;
    tools.set(name, { tool: { ...tool, name }, handler });
  };

  define(
    {
      name: "add",
      description: "Add two integers.",
      inputSchema: objectSchema({ a: { type: "integer" }, b: { type: "integer" } }, ["a", "b"], {
        additionalProperties: false,
      }),
      outputSchema: {
        type: "object",
        properties: { sum: { type: "integer" } },
        required: ["sum"],
      },
    },
    (args) => {
      const sum = intArg(args, "a") + intArg(args, "b");
      return { content: [{ type: "text", text: String(sum) }], structuredContent: { sum } };
    },
  );
  define(
    {
      name: "echo",
      description: "Return the text it is given.",
      inputSchema: objectSchema({ text: { type: "string" } }, ["text"]),
    },
    (args) => text(stringArg(args, "text")),
  );
  define(
    {
      name: "sleep",
      description: "Wait ms milliseconds, then answer 'slept'.",
      inputSchema: objectSchema({ ms: { type: "integer", minimum: 0 } }, ["ms"]),
    },
    async (args, signal) => {
      await sleep(intArg(args, "ms"), signal);
      return text("slept");
    },
  );
  define(
    {
      name: "big",
      description: "Return a text result of exactly `bytes` bytes.",
      inputSchema: objectSchema({ bytes: { type: "integer", minimum: 0 } }, ["bytes"]),
    },
    (args) => {
      const bytes = intArg(args, "bytes");
      if (bytes < 0 || bytes > BIG_MAX_BYTES) throw invalid(`"bytes" must be 0..${BIG_MAX_BYTES}`);
      return text("x".repeat(bytes));
    },
  );
  define(
    {
      name: "fail",
      description: "Always answer with an error result.",
      inputSchema: objectSchema({}, []),
    },
    () => ({ content: [{ type: "text", text: "toy failure" }], isError: true }),
  );
  define(
    {
      name: "crash",
      description: "Exit the server process at once, in the middle of the call.",
      inputSchema: objectSchema({}, []),
    },
    () => {
      stderrLine("toy server: crash requested, exiting with status 1");
      process.exit(1);
    },
  );
  define(
    {
      name: "env",
      description: "Return the value of an environment variable of the server process.",
      inputSchema: objectSchema({ name: { type: "string" } }, ["name"]),
    },
    (args) => text(process.env[stringArg(args, "name")] ?? "(unset)"),
  );
  define(
    {
      name: "read_secret",
      description: "Return a secret (a tool to mark private).",
      inputSchema: objectSchema({}, []),
    },
    () => text("the secret is 42"),
  );
  define(
    {
      name: "send",
      description: "Pretend to send a message somewhere (a tool that leaks data out).",
      inputSchema: objectSchema(
        { to: { type: "string" }, body: { type: "string" } },
        ["to", "body"],
        { additionalProperties: false },
      ),
    },
    (args) => {
      stringArg(args, "to");
      stringArg(args, "body");
      return text("sent");
    },
  );
  define(
    {
      name: "get-weather",
      description: "Weather for a city (a hyphenated tool name).",
      inputSchema: objectSchema({ city: { type: "string" } }, ["city"]),
    },
    (args) => text(`Weather in ${stringArg(args, "city")}: sunny, 21 C`),
  );
  define(
    {
      name: "deep",
      description: `Takes an object nested ${TOY_DEEP_SCHEMA_LEVELS} levels deep.`,
      inputSchema: nestedSchema(TOY_DEEP_SCHEMA_LEVELS),
    },
    () => text("deep"),
  );
  define(
    {
      name: "add_tool",
      description: "Register a new tool with the given name and announce the change.",
      inputSchema: objectSchema({ name: { type: "string", minLength: 1 } }, ["name"]),
    },
    async (args) => {
      const added = stringArg(args, "name");
      if (added === "" || tools.has(prefix + added)) throw invalid(`cannot add tool "${added}"`);
      define(
        {
          name: added,
          description: "A tool added at run time.",
          inputSchema: objectSchema({}, []),
        },
        () => text(`${prefix + added} called`),
      );
      await server.sendToolListChanged();
      return text(`added ${prefix + added}`);
    },
  );

  // TOY_FLOOD_TOOLS="COUNT:CHARS" adds COUNT tools with CHARS-long descriptions: a server
  // whose tool list alone is larger than one API reply may be.
  const [floodCount = 0, floodChars = 0] = (process.env.TOY_FLOOD_TOOLS ?? "")
    .split(":")
    .map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < floodCount; i += 1) {
    define(
      {
        name: `flood_${i}`,
        description: "f".repeat(floodChars),
        inputSchema: objectSchema({}, []),
      },
      () => text("flood"),
    );
  }

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const all = [...tools.values()].map((t) => t.tool);
    if (!(pageSize > 0)) return { tools: all };
    const start = Number.parseInt(request.params?.cursor ?? "0", 10);
    if (!Number.isInteger(start) || start < 0 || start > all.length) throw invalid("bad cursor");
    const end = start + pageSize;
    return end < all.length
      ? { tools: all.slice(start, end), nextCursor: String(end) }
      : { tools: all.slice(start) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (callLog) appendFileSync(callLog, `${JSON.stringify({ tool: name, args })}\n`);
    const entry = tools.get(name);
    if (!entry) throw invalid(`Unknown tool: ${name}`);
    return entry.handler(args, extra.signal);
  });

  stderrLine(`toy server: started (pid ${process.pid})`);
  await server.connect(new StdioServerTransport());
  // Like a well-behaved server, leave when the client closes our stdin, even with a
  // `sleep` still pending: a client's close() should not have to fall back to signals.
  process.stdin.on("end", () => process.exit(0));
}

function runAsProgram(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === thisFile;
  } catch {
    return false;
  }
}

// Run only as a program, not when a test imports TOY_SERVER_JS.
if (runAsProgram()) {
  main().catch((error: unknown) => {
    stderrLine(`toy server: ${String(error)}`);
    process.exit(1);
  });
}
