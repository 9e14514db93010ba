// Every code example a person or a model reads runs as written: the run_python description's
// (made from its catalog: runPythonExamples, for several servers and for one, whose tools are
// `tools.x`), and those of README.md, docs/ and skills/codemode/SKILL.md (python
// fences, and inline code that awaits something: test-support/code-examples.ts). Each runs in the
// real sandbox against a toy catalog that has the tools the examples call; a NameError (a missing
// import), a ToolError or any other exception fails it. A new example that calls a new tool
// needs that tool in TOY_TOOLS (with its parameters: the check before the run judges the
// example's calls); a new kind of example (another call form) needs only its tools.
import { expect, it } from "vitest";
import {
  runPythonExamples,
  type ExampleTool,
} from "../electron/host/core/catalog/description-examples.js";
import { SINGLE_SERVER_NAMESPACE } from "../electron/host/core/catalog/python-names.js";
import { renderStub } from "../electron/host/core/catalog/tool-stub.js";
import type { CallOutcome, SandboxTool } from "../electron/host/core/ports/run-types.js";
import { pageExamples, type CodeExample } from "../test-support/code-examples.js";
import { coldSandbox } from "../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../test-support/docker.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

type Args = Record<string, unknown>;

/**
 * The tools the examples call, each with its parameters (the check before the run judges the
 * examples' calls against them, as it would a model's) and what it answers (a value, sent as
 * JSON, or text). Each is both `server__tool` and the namespace's method `server.tool`.
 */
const TOY_TOOLS: Record<
  string,
  { description: string; params: Record<string, string>; answer: (args: Args) => unknown }
> = {
  shop__get_item: {
    description: "One item by id.",
    params: { id: "integer" },
    answer: (args) => ({ id: args.id, name: `item ${String(args.id)}` }),
  },
  notes__search: {
    description: "Notes matching a query.",
    params: { query: "string" },
    answer: () => [{ id: 1 }, { id: 2 }],
  },
  notes__read: {
    description: "One note's text.",
    params: { id: "integer" },
    answer: (args) => `the text of note ${String(args.id)}`,
  },
  toy__add: {
    description: "Add two integers.",
    params: { a: "integer", b: "integer" },
    answer: (args) => ({ sum: Number(args.a) + Number(args.b) }),
  },
};

/** The toy tools as a catalog has them: `notes__search` in `notes`, or with one server (its
 * tools only) `search` in `tools`. */
function toyCatalog(single?: string): (ExampleTool & { description: string })[] {
  return Object.entries(TOY_TOOLS).flatMap(([name, tool]) => {
    const [server = "", method = ""] = name.split("__");
    if (single !== undefined && server !== single) return [];
    return [
      {
        pyName: single === undefined ? name : method,
        namespace: single === undefined ? server : SINGLE_SERVER_NAMESPACE,
        method,
        private: false,
        deprecated: false,
        description: tool.description,
        inputSchema: {
          type: "object",
          properties: Object.fromEntries(
            Object.entries(tool.params).map(([p, t]) => [p, { type: t }]),
          ),
          required: Object.keys(tool.params),
        },
      },
    ];
  });
}

function sandboxTools(catalog: ReturnType<typeof toyCatalog>): SandboxTool[] {
  return catalog.map((tool) => ({
    name: tool.pyName,
    description: tool.description,
    namespace: tool.namespace,
    method: tool.method ?? "",
    schema: JSON.stringify(tool.inputSchema),
    stub: renderStub({ ...tool, callName: `${tool.namespace}.${tool.method ?? ""}` }),
  }));
}

/** The server whose tools the one-server catalog holds. */
const SINGLE = "notes";
const TOOLS = sandboxTools(toyCatalog());

function onCall(name: string, args: unknown): Promise<CallOutcome> {
  const tool = name.includes("__") ? name : `${SINGLE}__${name}`;
  const known = TOY_TOOLS[tool];
  if (known === undefined) return Promise.resolve({ ok: false, message: `no tool ${tool}` });
  const value = known.answer(args as Args);
  // As the bridge answers: a JSON object or list a namespaced call parses, else text.
  return Promise.resolve(
    typeof value === "string"
      ? { ok: true, value }
      : { ok: true, value: JSON.stringify(value), form: "json" },
  );
}

/** The description's examples for a catalog, each with the tools it runs against. */
function descriptionExamples(
  mode: string,
  catalog: ReturnType<typeof toyCatalog>,
): (CodeExample & { tools: SandboxTool[] })[] {
  const examples = runPythonExamples(catalog);
  if (examples === null) throw new Error(`no examples for ${mode}`);
  const tools = sandboxTools(catalog);
  return [
    { where: `the run_python description, ${mode} (call)`, code: examples.call, tools },
    { where: `the run_python description, ${mode} (gather)`, code: examples.gather, tools },
  ];
}

const EXAMPLES: (CodeExample & { tools?: SandboxTool[] })[] = [
  ...descriptionExamples("several servers", toyCatalog()),
  ...descriptionExamples("one server", toyCatalog(SINGLE)),
  ...pageExamples(),
];

describeEachRuntime(docker, "every code example runs as written (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  it.each(EXAMPLES.map((example) => [example.where, example] as const))(
    "%s",
    async (_where, example) => {
      const result = await sandbox.run(
        { code: example.code, deadlineSeconds: 30, tools: example.tools ?? TOOLS },
        { onCall },
      );
      expect(result.error, `${example.where}:\n${example.code}`).toBeNull();
      expect(result.stopped).toBeNull();
    },
  );
});
