// What a model reads and writes to do a fixed set of tasks against real published MCP servers
// (server-everything, server-filesystem over generated files, server-memory), measured in one
// run both ways:
// - classic tool calling: the three servers' own `tools/list`, then every call (its name and
//   arguments) and its result, one at a time, each made for real with the SDK's Client;
// - Code Mode: `codemode serve --config` (the same three servers) under the SDK's Client: its
//   `tools/list`, a first run that prints the stubs of the tools the task uses (the lookup the
//   description asks for), then the run that does the task, written against the typed API
//   (`await filesystem.read_text_file(path=...)`): its code and its result.
// The model-style tasks (model-style-tasks.ts) make a model's usual mistake once: the classic
// side calls the tool wrongly, reads the error and goes on; on Code Mode the first run has the
// mistake, the check before the run reports it (no call made), and the next run works.
// Each task is a conversation of its own, so each pays its tools/list. A result counts as the
// text of its content blocks (other blocks as their JSON); a call counts as the JSON of its
// name and arguments. Per task the bytes are split by where they go: the tool list, the stubs
// read, the work (calls and results, or the run), the errors and retries. Both sides must reach
// the same answer, or the bench fails.
//
//   npx tsx bench/context-economy.ts
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { assertServeBuilt, startServe, writeConfig } from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import {
  tasks,
  writeTaskFiles,
  type ClassicCall,
  type ClassicIO,
  type Task,
} from "./context-economy-tasks.js";
import { report } from "./report.js";
import { runResultIn } from "../shared/run-result.js";
import { commandOf, SERVERS, type ServerName } from "./economy-servers.js";
import { TOOL_PART_MARK } from "../electron/host/core/catalog/run-python-description.js";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

/** The text a model reads of a tool result: its text blocks, other blocks as JSON. */
function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === "text" ? block.text : JSON.stringify(block)))
    .join("\n");
}

interface Side {
  toolsList: number;
  /**
   * Of the tool list, the bytes of run_python's guidance (its description before the tool
   * part), as the list carries them (JSON-escaped); 0 on the classic side.
   */
  guidance: number;
  /** The lookup run (Code Mode only): its call and the stubs it printed. */
  stubs: number;
  /** The calls and their results, or the run that does the task. */
  work: number;
  /** A mistaken call and its error, or the run the check stopped and its report. */
  errors: number;
  calls: number;
  answer: string;
}

const total = (side: Side): number => side.toolsList + side.stubs + side.work + side.errors;

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

/** The text a model reads of a call the server refused: its error result, or the error. */
async function errorOf(
  client: Client,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  try {
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    if (result.isError !== true) throw new Error(`${tool}: the mistaken call did not fail`);
    return resultText(result);
  } catch (error) {
    if (error instanceof McpError) return error.message;
    throw error;
  }
}

async function classicSide(task: Task, filesRoot: string): Promise<Side> {
  const memoryFile = path.join(tempDir("codemode-bench-memory-"), "memory.jsonl");
  const clients = new Map<ServerName, Client>();
  try {
    let toolsList = 0;
    for (const server of SERVERS) {
      const client = await connect(server, filesRoot, memoryFile);
      clients.set(server, client);
      toolsList += bytes(JSON.stringify(await client.listTools()));
    }
    const side = { toolsList, guidance: 0, stubs: 0, work: 0, errors: 0, calls: 0, answer: "" };
    const clientOf = (server: ServerName): Client => {
      const client = clients.get(server);
      if (client === undefined) throw new Error(`no client for ${server}`);
      return client;
    };
    const sent = (tool: string, args: Record<string, unknown>) =>
      bytes(JSON.stringify({ name: tool, arguments: args }));
    const io: ClassicIO = {
      call: async ({ server, tool, args }: ClassicCall) => {
        const result = (await clientOf(server).callTool({
          name: tool,
          arguments: args,
        })) as CallToolResult;
        if (result.isError === true)
          throw new Error(`${server}/${tool} failed: ${resultText(result)}`);
        const text = resultText(result);
        side.work += sent(tool, args) + bytes(text);
        side.calls += 1;
        return text;
      },
      mistake: async ({ server, tool, args }: ClassicCall) => {
        side.errors += sent(tool, args) + bytes(await errorOf(clientOf(server), tool, args));
        side.calls += 1;
      },
    };
    side.answer = await task.classic(io);
    return side;
  } finally {
    for (const client of clients.values()) await client.close();
  }
}

async function codeModeSide(task: Task, filesRoot: string): Promise<Side> {
  const memoryFile = path.join(tempDir("codemode-bench-memory-"), "memory.jsonl");
  const config = writeConfig(
    Object.fromEntries(SERVERS.map((server) => [server, commandOf(server, filesRoot, memoryFile)])),
  );
  const serve = await startServe({ args: ["--config", config] });
  try {
    const list = await serve.client.listTools();
    const toolsList = bytes(JSON.stringify(list));
    const guidance = guidanceBytes(list.tools.find((tool) => tool.name === "run_python"));
    const run = async (code: string) => {
      const result = await serve.callTool("run_python", { code });
      const read =
        bytes(JSON.stringify({ name: "run_python", arguments: { code } })) +
        bytes(resultText(result));
      return { result, read };
    };
    const lookUp = `for name in ${JSON.stringify(task.lookUp)}:\n    print(TOOLS[name])`;
    const stubs = await run(lookUp);
    let errors = 0;
    if (task.mistake !== undefined) {
      const first = await run(task.mistake.code);
      const caught = runResultIn(first.result);
      // The point of the check: the run with the mistake made no call at all.
      if (caught?.stopped !== "check" || caught.calls !== 0)
        throw new Error(`${task.name}: the mistake was not caught before any call`);
      errors = first.read;
    }
    const work = await run(task.code);
    if (work.result.isError === true)
      throw new Error(`${task.name}: run failed: ${resultText(work.result)}`);
    // Counted is the content the model reads; the answer comes from the result in _meta.
    const answer = (runResultIn(work.result)?.stdout ?? "").trim();
    return { toolsList, guidance, stubs: stubs.read, work: work.read, errors, calls: 0, answer };
  } finally {
    await serve.close();
  }
}

function guidanceBytes(tool: { description?: string } | undefined): number {
  const description = tool?.description ?? "";
  const at = description.indexOf(TOOL_PART_MARK);
  if (at < 0) throw new Error("run_python's description has no tool part");
  // Counted as the tool list carries it: JSON-escaped, without the quotes.
  return bytes(JSON.stringify(description.slice(0, at))) - 2;
}

function kb(n: number): string {
  return `${(n / 1000).toFixed(1)} KB`;
}

const percentFewer = (codeMode: number, classic: number): string =>
  `${((1 - codeMode / classic) * 100).toFixed(1)} %`;

/** `list + stubs + work + errors = total` of one side, in KB. */
function breakdown(side: Side): string {
  return `${kb(side.toolsList)} + ${kb(side.stubs)} + ${kb(side.work)} + ${kb(side.errors)} = ${kb(total(side))}`;
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

  console.log(
    "\nContext economy: bytes a model reads and writes per task, by where they go:" +
      " tool list + stubs read + work (calls and results, or runs) + errors and retries",
  );
  let classicTotal = 0;
  let codeModeTotal = 0;
  for (const { name, classic, codeMode } of rows) {
    const c = total(classic);
    const m = total(codeMode);
    classicTotal += c;
    codeModeTotal += m;
    console.log(`${name}`);
    console.log(`  classic (${classic.calls} calls)`.padEnd(24) + breakdown(classic));
    console.log("  Code Mode".padEnd(24) + breakdown(codeMode) + `   ${percentFewer(m, c)} fewer`);
    report({
      what: `bytes a model reads and writes with Code Mode (tool list ${codeMode.toolsList} B, stubs ${codeMode.stubs} B, run ${codeMode.work} B, errors and retries ${codeMode.errors} B): ${name}`,
      value: m,
      unit: "B",
      baseline: c,
      baselineWhat: `classic tool calling (tool list ${classic.toolsList} B, calls and results ${classic.work} B, errors ${classic.errors} B)`,
    });
  }
  console.log(
    `all ${rows.length} tasks: classic ${kb(classicTotal)}, Code Mode ${kb(codeModeTotal)}, ` +
      `${percentFewer(codeModeTotal, classicTotal)} fewer`,
  );
  report({
    what: `bytes a model reads and writes with Code Mode over all ${rows.length} tasks, 5 of them with a model's usual mistake (tools/list included)`,
    value: codeModeTotal,
    unit: "B",
    baseline: classicTotal,
    baselineWhat: "classic tool calling: the servers' tools/list, then each call and result",
    note: `${percentFewer(codeModeTotal, classicTotal)} fewer; goal: >= 97 % fewer`,
  });
  // How much of the tool list is guidance, and what the tasks would cost without it: the index
  // of the tools and run_python's input schema are sent in every task all the same.
  const guidance = rows.reduce((sum, row) => sum + row.codeMode.guidance, 0);
  const toolsLists = rows.reduce((sum, row) => sum + row.codeMode.toolsList, 0);
  const rest = codeModeTotal - toolsLists;
  report({
    what: `the same with no guidance in run_python's description (the tool index and input schema kept, ${Math.round((toolsLists - guidance) / rows.length)} B a task)`,
    value: codeModeTotal - guidance,
    unit: "B",
    baseline: classicTotal,
    baselineWhat: "classic tool calling, as above",
    note:
      `${percentFewer(codeModeTotal - guidance, classicTotal)} fewer; ` +
      `guidance ${Math.round(guidance / rows.length)} B a task; ` +
      `stubs, runs and errors alone ${rest} B (${percentFewer(rest, classicTotal)} fewer)`,
  });
}

await main();
