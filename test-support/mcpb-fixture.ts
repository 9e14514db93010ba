// Builds a real MCP Bundle for the tests with the MCPB project's own CLI (`mcpb pack`, from
// the @anthropic-ai/mcpb devDependency; it validates the manifest as it packs). The bundle
// holds a tiny Node MCP server written without dependencies, with one tool, `greet`, whose
// answer shows both of its user_config values reached it: a plain one in an argument and a
// sensitive one in the environment.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { makeHome } from "./daemon.js";

const require = createRequire(import.meta.url);

/** The server: newline-delimited JSON-RPC on stdio, as MCP's stdio transport speaks it. */
const SERVER_SOURCE = `import { createInterface } from "node:readline";
const greeting = process.argv[2] ?? "Hello";
const key = process.env.GREETER_API_KEY ?? "";
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let request;
  try { request = JSON.parse(line); } catch { return; }
  if (request.id === undefined) return;
  const { id, method, params } = request;
  if (method === "initialize") {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "greeter", version: "1.0.0" } } });
  } else if (method === "tools/list") {
    send({ id, result: { tools: [{ name: "greet", description: "Greets someone.", inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }] } });
  } else if (method === "tools/call") {
    const text = greeting + ", " + params.arguments.name + "! (key of " + key.length + " characters, from " + import.meta.dirname + ")";
    send({ id, result: { content: [{ type: "text", text }] } });
  } else if (method === "ping") {
    send({ id, result: {} });
  } else {
    send({ id, error: { code: -32601, message: "unknown method " + method } });
  }
});
`;

export const GREETER_MANIFEST = {
  manifest_version: "0.3",
  name: "greeter",
  display_name: "Greeter",
  version: "1.0.0",
  description: "Greets people; a test bundle for Code Mode.",
  author: { name: "Code Mode tests" },
  server: {
    type: "node",
    entry_point: "server/index.mjs",
    mcp_config: {
      command: "node",
      args: ["${__dirname}/server/index.mjs", "${user_config.greeting}"],
      env: { GREETER_API_KEY: "${user_config.api_key}" },
    },
  },
  tools: [{ name: "greet", description: "Greets someone." }],
  compatibility: { platforms: ["darwin", "win32", "linux"], runtimes: { node: ">=20.0.0" } },
  user_config: {
    api_key: {
      type: "string",
      title: "API key",
      description: "The greeter's key (any text will do).",
      sensitive: true,
      required: true,
    },
    greeting: {
      type: "string",
      title: "Greeting",
      description: "The word it greets with.",
      default: "Hello",
    },
  },
  license: "MIT",
};

/**
 * Packs the greeter bundle (or one with `manifest` changed) with `mcpb pack`; returns the
 * .mcpb file's path, in a fresh temporary folder.
 */
export function packGreeterBundle(manifest: Record<string, unknown> = GREETER_MANIFEST): string {
  // A temporary home of the test's: cleanUpHosts removes it with the others.
  const work = makeHome("codemode-mcpb-");
  const source = path.join(work, "greeter");
  mkdirSync(path.join(source, "server"), { recursive: true });
  writeFileSync(path.join(source, "manifest.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(path.join(source, "server", "index.mjs"), SERVER_SOURCE);
  const cli = path.join(path.dirname(require.resolve("@anthropic-ai/mcpb")), "cli", "cli.js");
  const out = path.join(work, "greeter.mcpb");
  execFileSync(process.execPath, [cli, "pack", source, out], { stdio: "pipe" });
  return out;
}
