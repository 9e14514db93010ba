// A small, real MCP server over stdio whose tools have the shapes a typed API must get right:
// enums, optional and nested parameters, names that are not Python identifiers (a tool
// `find-item`, a parameter "item name", one called `from`), an output schema with structured
// content, a result that breaks its own output schema, a JSON text result, an image, and an
// error. The typed-API tests and the workbench bench start it as a subprocess
// (`process.execPath` + the built `dist/test-servers/shop-server.js`).
//
// SHOP_CALL_LOG=<file>: every tools/call is appended as one JSON line `{"tool", "args"}` before
// it runs, so a test can prove that no call reached the server.

import { appendFileSync, realpathSync } from "node:fs";
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

/** Absolute path of the built shop server (from the TypeScript source: the one in `dist/`). */
export const SHOP_SERVER_JS = thisFile.endsWith(".ts")
  ? resolve(dirname(thisFile), "..", "dist", "test-servers", "shop-server.js")
  : thisFile;

/** A 1x1 PNG: what `label` returns as its image. */
export const SHOP_LABEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgaPj/HwAEggJ/59habAAAAABJRU5ErkJggg==";

/** What each size costs. */
const PRICES: Record<string, number> = { S: 2.5, M: 3, L: 3.5 };

type Args = Record<string, unknown>;

interface ShopTool {
  tool: Tool;
  handler: (args: Args) => CallToolResult;
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

function shopTools(): ShopTool[] {
  const cart: { name: string; qty: number; size: string }[] = [];
  return [
    {
      tool: {
        name: "add_item",
        description: "Put an item in the cart; returns the cart's total.",
        inputSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "What to add." },
            qty: { type: "integer", minimum: 1, description: "How many." },
            size: { enum: ["S", "M", "L"], description: "The size; M when left out." },
            gift: {
              type: "object",
              description: "Wrap it as a gift.",
              properties: { wrap: { type: "boolean" }, message: { type: "string" } },
              required: ["wrap"],
            },
          },
          required: ["name", "qty"],
          additionalProperties: false,
        },
        outputSchema: {
          type: "object",
          properties: { total: { type: "number" }, items: { type: "integer" } },
          required: ["total", "items"],
        },
      },
      handler: (args) => {
        const size = typeof args.size === "string" ? args.size : "M";
        cart.push({ name: String(args.name), qty: Number(args.qty), size });
        const total = cart.reduce((sum, item) => sum + item.qty * (PRICES[item.size] ?? 0), 0);
        const result = { total, items: cart.length };
        return {
          content: [{ type: "text", text: JSON.stringify(result) }],
          structuredContent: result,
        };
      },
    },
    {
      tool: {
        name: "list_items",
        description: "The cart, as JSON text.",
        inputSchema: { type: "object", properties: {} },
      },
      handler: () => text(JSON.stringify(cart)),
    },
    {
      tool: {
        name: "find-item",
        description: "Find an item in the catalogue by its name.",
        inputSchema: {
          type: "object",
          properties: {
            "item name": { type: "string", description: "The name to look for." },
            from: { type: "string", description: "The shelf to start from." },
            limit: { type: "integer" },
          },
          required: ["item name"],
        },
      },
      handler: (args) =>
        text(
          `found ${String(args["item name"])} from ${typeof args.from === "string" ? args.from : "the start"}`,
        ),
    },
    {
      tool: {
        name: "label",
        description: "A shipping label: a line of text and its image.",
        inputSchema: { type: "object", properties: { order: { type: "integer" } } },
      },
      handler: (args) => ({
        content: [
          {
            type: "text",
            text: `label for order ${typeof args.order === "number" ? args.order : 0}`,
          },
          { type: "image", data: SHOP_LABEL_PNG, mimeType: "image/png" },
        ],
      }),
    },
    {
      tool: {
        name: "stock",
        description: "How many of each size are left (its result breaks its own output schema).",
        inputSchema: { type: "object", properties: {} },
        outputSchema: {
          type: "object",
          properties: { left: { type: "integer" } },
          required: ["left"],
        },
      },
      handler: () => ({
        content: [{ type: "text", text: "lots" }],
        structuredContent: { left: "lots" },
      }),
    },
    {
      tool: {
        name: "checkout",
        description: "Pay for the cart (it always fails: the card is declined).",
        inputSchema: { type: "object", properties: {} },
      },
      handler: () => ({ content: [{ type: "text", text: "card declined" }], isError: true }),
    },
    {
      tool: {
        name: "add_items",
        description: "DEPRECATED: use add_item instead.",
        inputSchema: {
          type: "object",
          properties: { names: { type: "array", items: { type: "string" } } },
        },
      },
      handler: () => text("deprecated"),
    },
  ];
}

async function main(): Promise<void> {
  const callLog = process.env.SHOP_CALL_LOG;
  const tools = new Map(shopTools().map((entry) => [entry.tool.name, entry]));
  const server = new Server(
    { name: "shop-server", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...tools.values()].map((entry) => entry.tool),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name } = request.params;
    const args = request.params.arguments ?? {};
    if (callLog) appendFileSync(callLog, `${JSON.stringify({ tool: name, args })}\n`);
    const entry = tools.get(name);
    if (!entry) throw invalid(`Unknown tool: ${name}`);
    return entry.handler(args);
  });
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
    process.stderr.write(`shop server: ${String(error)}\n`);
    process.exit(1);
  });
}
