// The typed API, measured in one run: (1) the size of a tool's stub, typed against the dict
// form's, on the catalog of three published servers and on a 100-tool one; (2) the model-style
// tasks of model-style-tasks.ts, each written both ways with a model's usual mistake, run for
// real under `codemode serve --config`: the share caught before any call, and the bytes a model
// reads to get each task right (the stubs it looks up, its runs' code and what they print or
// raise, the retry); (3) the check's cost per run, timed inside the runner in the sandbox on
// 200 lines of calls over the 100-tool catalog, beside compiling the same code (what a run does
// without the check).
//
//   npx tsx bench/workbench.ts
//
// The dict form's stubs are what TOOLS[name] printed before the typed API (renderDictStub); its
// lookup run's bytes are worked out from them as the typed lookup's are from its stubs (the bench
// checks that sum against the typed lookup's real output). Everything else is run for real.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { buildCatalog } from "../electron/host/core/catalog/catalog-builder.js";
import type { Catalog, ServerTools } from "../electron/host/core/catalog/catalog-types.js";
import { renderDictStub } from "../electron/host/core/catalog/tool-stub.js";
import { runResultIn, type RunResult } from "../shared/run-result.js";
import { assertServeBuilt, startServe, writeConfig } from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { writeTaskFiles } from "./context-economy-tasks.js";
import type { Task } from "./economy-task-kit.js";
import { commandOf, SERVERS } from "./economy-servers.js";
import { hundredTools } from "./hundred-tools.js";
import { checkCost } from "./workbench-check-cost.js";
import { modelStyleTasks } from "./model-style-tasks.js";
import { report } from "./report.js";

/** A stub's size per tool may grow by at most this much over the dict form's. */
const STUB_GROWTH_GOAL = 0.15;

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => (block.type === "text" ? block.text : JSON.stringify(block)))
    .join("\n");
}

/** The three servers' tools as they list them (the filesystem server over `root`). */
async function listedServers(root: string): Promise<ServerTools[]> {
  const listed: ServerTools[] = [];
  for (const server of SERVERS) {
    const { command, args, env } = commandOf(server, root, path.join(root, "memory.jsonl"));
    const client = new Client({ name: "workbench", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        env: { PATH: process.env.PATH ?? "", ...env },
        stderr: "ignore",
      }),
    );
    try {
      listed.push({ server, tools: (await client.listTools()).tools, allow: null, private: false });
    } finally {
      await client.close();
    }
  }
  return listed;
}

function dictStub(catalog: Catalog, pyName: string): string {
  const tool = catalog.byPyName.get(pyName);
  if (tool === undefined) throw new Error(`no tool ${pyName}`);
  return renderDictStub(tool);
}

function stubSizes(what: string, catalog: Catalog): void {
  const typed = catalog.tools.map((tool) => bytes(tool.stub));
  const dict = catalog.tools.map((tool) => bytes(renderDictStub(tool)));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const perTool = sum(typed) / typed.length;
  const before = sum(dict) / dict.length;
  const worst = Math.max(...typed.map((t, i) => t / dict[i]!));
  console.log(
    `${what}: ${catalog.tools.length} tools, stub per tool ${before.toFixed(0)} B (dict form) -> ` +
      `${perTool.toFixed(0)} B (typed), ${(perTool / before).toFixed(3)}x; one tool at most ${worst.toFixed(2)}x`,
  );
  report({
    what: `a tool's stub, typed (signature, return type, a line per documented parameter), mean per tool, ${what}`,
    value: perTool,
    unit: "B",
    baseline: before,
    baselineWhat: "the dict form's stub of the same tools (`params: dict`, parameters in one line)",
    note: `goal: within ${STUB_GROWTH_GOAL * 100} % (<= ${(1 + STUB_GROWTH_GOAL).toFixed(2)}x); the most grown tool ${worst.toFixed(2)}x`,
  });
}

interface Attempt {
  read: number;
  result: RunResult | undefined;
  isError: boolean;
}

interface FormResult {
  stubs: number;
  first: Attempt;
  fixed: Attempt;
  answer: string;
  caughtBeforeAnyCall: boolean;
}

/** The bytes of a lookup run that prints `stubs`: its call, then what it printed. */
function lookupBytes(names: readonly string[], stubs: readonly string[]): number {
  const code = `for name in ${JSON.stringify(names)}:\n    print(TOOLS[name])`;
  return (
    bytes(JSON.stringify({ name: "run_python", arguments: { code } })) +
    bytes(stubs.map((stub) => `${stub}\n`).join(""))
  );
}

async function runForm(
  task: Task,
  form: "typed" | "dict",
  filesRoot: string,
  catalog: Catalog,
): Promise<FormResult> {
  const memoryFile = path.join(tempDir("codemode-bench-memory-"), "memory.jsonl");
  const config = writeConfig(
    Object.fromEntries(SERVERS.map((server) => [server, commandOf(server, filesRoot, memoryFile)])),
  );
  const serve = await startServe({ args: ["--config", config] });
  try {
    const run = async (code: string): Promise<Attempt> => {
      const result = await serve.callTool("run_python", { code });
      const read =
        bytes(JSON.stringify({ name: "run_python", arguments: { code } })) +
        bytes(resultText(result));
      return { read, result: runResultIn(result), isError: result.isError === true };
    };
    const pyNames = task.lookUp.map((name) => name.replace(".", "__"));
    let stubs: number;
    if (form === "typed") {
      const lookup = await run(
        `for name in ${JSON.stringify(task.lookUp)}:\n    print(TOOLS[name])`,
      );
      const typedStubs = pyNames.map((name) => catalog.byPyName.get(name)?.stub ?? "");
      // The sum the dict side is worked out with must be the typed lookup's real bytes.
      if (lookup.read !== lookupBytes(task.lookUp, typedStubs))
        throw new Error(`${task.name}: the lookup's bytes are not what its stubs add up to`);
      stubs = lookup.read;
    } else {
      stubs = lookupBytes(
        pyNames,
        pyNames.map((name) => dictStub(catalog, name)),
      );
    }
    const codes = form === "typed" ? { mistake: task.mistake?.code, code: task.code } : task.dict;
    if (codes?.mistake === undefined) throw new Error(`${task.name}: no ${form} form`);
    const first = await run(codes.mistake);
    if (!first.isError) throw new Error(`${task.name} (${form}): the mistake did not fail`);
    const fixed = await run(codes.code);
    if (fixed.isError) throw new Error(`${task.name} (${form}): the fixed run failed`);
    return {
      stubs,
      first,
      fixed,
      answer: (fixed.result?.stdout ?? "").trim(),
      caughtBeforeAnyCall: first.result?.stopped === "check" && first.result.calls === 0,
    };
  } finally {
    await serve.close();
  }
}

const kb = (n: number): string => `${(n / 1000).toFixed(1)} KB`;

async function tasksPart(
  catalog: Catalog,
  files: ReturnType<typeof writeTaskFiles>,
): Promise<void> {
  let caughtTyped = 0;
  let caughtDict = 0;
  let typedTotal = 0;
  let dictTotal = 0;
  const tasks = modelStyleTasks(files);
  console.log(
    "\nModel-style tasks, each with one mistake, until right: stubs read + first run + retry",
  );
  for (const task of tasks) {
    const typed = await runForm(task, "typed", files.root, catalog);
    const dict = await runForm(task, "dict", files.root, catalog);
    if (typed.answer !== dict.answer || typed.answer === "")
      throw new Error(`${task.name}: answers differ: ${typed.answer} / ${dict.answer}`);
    const typedBytes = typed.stubs + typed.first.read + typed.fixed.read;
    const dictBytes = dict.stubs + dict.first.read + dict.fixed.read;
    typedTotal += typedBytes;
    dictTotal += dictBytes;
    if (typed.caughtBeforeAnyCall) caughtTyped++;
    if (dict.caughtBeforeAnyCall) caughtDict++;
    const calls = (side: FormResult) => side.first.result?.calls ?? 0;
    console.log(`${task.name} [${task.mistake?.kind ?? ""}]`);
    for (const [what, side, total] of [
      ["typed", typed, typedBytes],
      ["dict form", dict, dictBytes],
    ] as const) {
      console.log(
        `  ${what.padEnd(10)} ${kb(side.stubs)} + ${kb(side.first.read)} + ${kb(side.fixed.read)} = ${kb(total)}` +
          `   mistake ${side.caughtBeforeAnyCall ? "caught before any call" : `raised after ${calls(side)} call(s)`}`,
      );
    }
    report({
      what: `bytes a model reads to get a task right with the typed API (stubs, the run with a ${task.mistake?.kind ?? "mistake"}, the retry): ${task.name}`,
      value: typedBytes,
      unit: "B",
      baseline: dictBytes,
      baselineWhat: "the same task in the dict form (`server__tool({...})`), the same mistake",
    });
  }
  console.log(
    `mistakes caught before any call: typed ${caughtTyped} of ${tasks.length}, dict form ${caughtDict} of ${tasks.length}; ` +
      `bytes to get all ${tasks.length} right: typed ${kb(typedTotal)}, dict form ${kb(dictTotal)}`,
  );
  report({
    what: `model-style tasks whose mistake (misspelt tool, renamed argument, string for a number, missing argument, value outside an enum) was caught before any call`,
    value: caughtTyped,
    unit: `of ${tasks.length}`,
    baseline: caughtDict,
    baselineWhat: "the dict form (a NameError or the bridge's refusal, once the run is under way)",
    note: "goal: every kind, when written as a direct call",
  });
  report({
    what: `bytes a model reads to get all ${tasks.length} model-style tasks right with the typed API`,
    value: typedTotal,
    unit: "B",
    baseline: dictTotal,
    baselineWhat: "the dict form, the same tasks and mistakes",
  });
}

async function main(): Promise<void> {
  assertServeBuilt();
  const files = writeTaskFiles(tempDir("codemode-bench-files-"));
  try {
    const published = buildCatalog(await listedServers(files.root), { prefixWithServer: true });
    console.log("Stub sizes");
    stubSizes("the three published servers (everything, filesystem, memory)", published);
    const hundred = buildCatalog(hundredTools(), { prefixWithServer: true });
    stubSizes("a 100-tool catalog (bench/hundred-tools.ts)", hundred);
    await tasksPart(published, files);
    await checkCost(hundred);
  } finally {
    removeTempDirs();
  }
}

await main();
