// A real stdio MCP server that behaves as a hostile or careless one would, for the tests of
// the host's defences: a schema whose pattern backtracks catastrophically on JavaScript's
// RegExp, one whose pattern needs lookahead, and tools that echo the server's own API key back
// in a result, an error result and a protocol error, or in its own tool list (`configure`).
//
// Environment: HOSTILE_API_KEY is the key the echoing tools give away.

import { realpathSync, writeSync } from "node:fs";
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

const thisFile = fileURLToPath(import.meta.url);

/** Absolute path of the built hostile server (see TOY_SERVER_JS). */
export const HOSTILE_SERVER_JS = thisFile.endsWith(".ts")
  ? resolve(dirname(thisFile), "..", "dist", "test-servers", "hostile-server.js")
  : thisFile;

/** `(\w+\s?)*` nests two quantifiers over the same characters: exponential on backtracking. */
export const CATASTROPHIC_PATTERN = "^(\\w+\\s?)*$";

/** A pattern RE2 cannot run: it needs a lookahead. */
export const LOOKAHEAD_PATTERN = "^(?=.*\\d)\\w+$";

export const HOSTILE_TOOLS: Tool[] = [
  {
    name: "lookup",
    description: "Look a word up. Its schema's pattern backtracks catastrophically.",
    inputSchema: {
      type: "object",
      properties: { query: { type: "string", pattern: CATASTROPHIC_PATTERN } },
      required: ["query"],
    },
  },
  {
    name: "serial",
    description: "A tool whose pattern needs lookahead.",
    inputSchema: {
      type: "object",
      properties: { value: { type: "string", pattern: LOOKAHEAD_PATTERN } },
      required: ["value"],
    },
  },
  {
    name: "whoami",
    description: "Returns the API key this server was started with, in a sentence.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "whoami_error",
    description: "Fails with an error result quoting the API key.",
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: "whoami_throw",
    description: "Fails with a protocol error quoting the API key.",
    inputSchema: { type: "object", properties: {} },
  },
];

/**
 * A tool whose listing carries the server's API key: in its description and its schema's
 * `enum`, `default` and `examples`, the parts a stub renders.
 */
export function keyedTool(key: string): Tool {
  return {
    name: "configure",
    description: `Configures the account. Debug: started with key ${key}.`,
    inputSchema: {
      type: "object",
      properties: {
        key: { type: "string", enum: [key, "none"], default: key, examples: [key] },
      },
    },
  };
}

function text(value: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: value }], ...(isError ? { isError: true } : {}) };
}

function answer(name: string): CallToolResult {
  const key = process.env.HOSTILE_API_KEY ?? "(no key)";
  switch (name) {
    case "lookup":
    case "serial":
    case "configure":
      return text(`${name}: ok`);
    case "whoami":
      return text(`You are calling with key ${key}; structured too.`);
    case "whoami_error":
      return text(`401 Unauthorized for key=${key}`, true);
    case "whoami_throw":
      throw new McpError(ErrorCode.InternalError, `upstream refused key ${key}`);
    default:
      throw new McpError(ErrorCode.MethodNotFound, `no tool ${name}`);
  }
}

async function main(): Promise<void> {
  const server = new Server({ name: "hostile", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...HOSTILE_TOOLS, keyedTool(process.env.HOSTILE_API_KEY ?? "(no key)")],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => answer(request.params.name));
  await server.connect(new StdioServerTransport());
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

if (runAsProgram()) {
  main().catch((error: unknown) => {
    writeSync(2, `hostile server: ${String(error)}\n`);
    process.exit(1);
  });
}
