// The toy server's TOY_TOOLS_FILE mode: the tools it lists are the JSON array in that file
// (whole wire tool objects, any keys), read again on every tools/list; when the file
// changes it sends notifications/tools/list_changed. Calling any listed tool answers with its
// name and arguments. Tests of pinned tool definitions edit the file to change a tool's
// description or schema, add one or remove one, between restarts or live.

import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** How often the file is polled for changes (fs.watchFile). */
export const TOY_TOOLS_FILE_POLL_MS = 100;

/** The tools in the file; a file that is missing or not an array of named objects lists none. */
function readTools(file: string): Tool[] {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (!Array.isArray(value)) return [];
    return value.filter(
      (t): t is Tool =>
        typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string",
    );
  } catch {
    return [];
  }
}

export async function serveToolsFile(file: string, log: (line: string) => void): Promise<void> {
  const server = new Server(
    { name: "toy-server", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: readTools(file) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name } = request.params;
    if (!readTools(file).some((t) => t.name === name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    const args = request.params.arguments ?? {};
    const text = JSON.stringify({ tool: name, args });
    return { content: [{ type: "text", text }], structuredContent: { tool: name, args } };
  });
  await server.connect(new StdioServerTransport());
  watchFile(file, { interval: TOY_TOOLS_FILE_POLL_MS }, (now, before) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
    server.sendToolListChanged().catch(() => undefined);
  });
  log(`toy server: listing the tools of ${file} (pid ${process.pid})`);
  process.stdin.on("end", () => {
    unwatchFile(file);
    process.exit(0);
  });
}
