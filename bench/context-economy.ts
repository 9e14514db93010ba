// What a model reads and writes to do a fixed set of tasks against real published MCP servers
// (server-everything, server-filesystem over generated files, server-memory), measured in one
// run both ways:
// - classic tool calling: the three servers' own `tools/list`, then every call (its name and
//   arguments) and its result, one at a time, each made for real with the SDK's Client;
// - Code Mode: `codemode serve --config` (the same three servers) under the SDK's Client: its
//   `tools/list`, a first run that prints the stubs of the tools the task uses (the lookup the
//   description asks for), then the run that does the task: its code and its result.
// Each task is a conversation of its own, so each pays its tools/list. A result counts as the
// text of its content blocks (other blocks as their JSON); a call counts as the JSON of its
// name and arguments. Both sides must reach the same answer, or the bench fails.
//
//   npx tsx bench/context-economy.ts
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { repoRoot } from "../test-support/processes.js";
import {
  assertServeBuilt,
  EVERYTHING_BIN,
  startServe,
  writeConfig,
} from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { tasks, writeTaskFiles, type ClassicCall } from "./context-economy-tasks.js";
import { report } from "./report.js";
import { runResultIn } from "../shared/run-result.js";

const SERVERS = ["everything", "filesystem", "memory"] as const;
type ServerName = (typeof SERVERS)[number];

const bin = (name: string) =>
  path.join(repoRoot, "node_modules", "@modelcontextprotocol", name, "dist", "index.js");

interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

function commandOf(server: ServerName, filesRoot: string, memoryFile: string): ServerCommand {
  if (server === "everything")
    return { command: process.execPath, args: [EVERYTHING_BIN, "stdio"], env: {} };
  if (server === "filesystem")
    return { command: process.execPath, args: [bin("server-filesystem"), filesRoot], env: {} };
  return {
    command: process.execPath,
    args: [bin("server-memory")],
    env: { MEMORY_FILE_PATH: memoryFile },
  };
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** The text a model reads of a tool result: its text blocks, other blocks as JSON. */
function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === "text" ? block.text : JSON.stringify(block)))
    .join("\n");
}

interface Side {
  toolsList: number;
  /** Calls (or code) and results. */
  traffic: number;
  calls: number;
  answer: string;
}

async function connect(server: ServerName, filesRoot: string, memoryFile: string): Promise<Client> {
  const { command, args, env } = commandOf(server, filesRoot, memoryFile);
  const client = new Client({ name: "context-economy", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? "", ...env },
      stderr: "ignore",
    }),
  );
  return client;
}

async function classicSide(
  task: ReturnType<typeof tasks>[number],
  filesRoot: string,
): Promise<Side> {
  const memoryFile = path.join(tempDir("codemode-bench-memory-"), "memory.jsonl");
  const clients = new Map<ServerName, Client>();
  try {
    let toolsList = 0;
    for (const server of SERVERS) {
      const client = await connect(server, filesRoot, memoryFile);
      clients.set(server, client);
      toolsList += bytes(JSON.stringify(await client.listTools()));
    }
    let traffic = 0;
    let calls = 0;
    const call = async ({ server, tool, args }: ClassicCall): Promise<string> => {
      const client = clients.get(server);
      if (client === undefined) throw new Error(`no client for ${server}`);
      const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
      if (result.isError === true)
        throw new Error(`${server}/${tool} failed: ${resultText(result)}`);
      const text = resultText(result);
      traffic += bytes(JSON.stringify({ name: tool, arguments: args })) + bytes(text);
      calls += 1;
      return text;
    };
    const answer = await task.classic(call);
    return { toolsList, traffic, calls, answer };
  } finally {
    for (const client of clients.values()) await client.close();
  }
}

async function codeModeSide(
  task: ReturnType<typeof tasks>[number],
  filesRoot: string,
): Promise<Side> {
  const memoryFile = path.join(tempDir("codemode-bench-memory-"), "memory.jsonl");
  const config = writeConfig(
    Object.fromEntries(SERVERS.map((server) => [server, commandOf(server, filesRoot, memoryFile)])),
  );
  const serve = await startServe({ args: ["--config", config] });
  try {
    const toolsList = bytes(JSON.stringify(await serve.client.listTools()));
    let traffic = 0;
    let answer = "";
    const lookUp = `for name in ${JSON.stringify(task.lookUp)}:\n    print(TOOLS[name])`;
    for (const code of [lookUp, task.code]) {
      const result = await serve.callTool("run_python", { code });
      if (result.isError === true)
        throw new Error(`${task.name}: run failed: ${resultText(result)}`);
      traffic +=
        bytes(JSON.stringify({ name: "run_python", arguments: { code } })) +
        bytes(resultText(result));
      // Counted is the content the model reads; the answer comes from the result in _meta.
      answer = runResultIn(result)?.stdout ?? "";
    }
    return { toolsList, traffic, calls: 2, answer: answer.trim() };
  } finally {
    await serve.close();
  }
}

function kb(n: number): string {
  return `${(n / 1000).toFixed(1)} KB`;
}

async function main(): Promise<void> {
  assertServeBuilt();
  const files = writeTaskFiles(tempDir("codemode-bench-files-"));
  const rows: { name: string; classic: Side; codeMode: Side }[] = [];
  try {
    for (const task of tasks(files)) {
      const classic = await classicSide(task, files.root);
      const codeMode = await codeModeSide(task, files.root);
      if (classic.answer !== codeMode.answer || classic.answer === "") {
        throw new Error(
          `${task.name}: answers differ: classic ${classic.answer}, Code Mode ${codeMode.answer}`,
        );
      }
      rows.push({ name: task.name, classic, codeMode });
    }
  } finally {
    removeTempDirs();
  }

  console.log("\nContext economy: bytes a model reads and writes per task (tools/list included)");
  console.log(
    "task".padEnd(78) +
      "classic: list + calls (n)".padStart(34) +
      "Code Mode: list + runs".padStart(28) +
      "fewer".padStart(8),
  );
  let classicTotal = 0;
  let codeModeTotal = 0;
  for (const { name, classic, codeMode } of rows) {
    const c = classic.toolsList + classic.traffic;
    const m = codeMode.toolsList + codeMode.traffic;
    classicTotal += c;
    codeModeTotal += m;
    console.log(
      name.padEnd(78) +
        `${kb(classic.toolsList)} + ${kb(classic.traffic)} (${classic.calls}) = ${kb(c)}`.padStart(
          34,
        ) +
        `${kb(codeMode.toolsList)} + ${kb(codeMode.traffic)} = ${kb(m)}`.padStart(28) +
        `${((1 - m / c) * 100).toFixed(1)} %`.padStart(8),
    );
    report({
      what: `bytes a model reads and writes with Code Mode (its tools/list included): ${name}`,
      value: m,
      unit: "B",
      baseline: c,
      baselineWhat: "classic tool calling: the servers' tools/list, then each call and result",
    });
  }
  console.log(
    "all tasks".padEnd(78) +
      kb(classicTotal).padStart(34) +
      kb(codeModeTotal).padStart(28) +
      `${((1 - codeModeTotal / classicTotal) * 100).toFixed(1)} %`.padStart(8),
  );
  report({
    what: `bytes a model reads and writes with Code Mode over all ${rows.length} tasks (tools/list included)`,
    value: codeModeTotal,
    unit: "B",
    baseline: classicTotal,
    baselineWhat: "classic tool calling: the servers' tools/list, then each call and result",
    note: "goal: >= 95 % fewer (ratio <= 0.05x)",
  });
}

await main();
