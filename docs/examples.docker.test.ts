// Every code example a person or a model reads runs as written: the run_python description's
// (RUN_PYTHON_EXAMPLES), and those of README.md, docs/ and skills/codemode/SKILL.md (python
// fences, and inline code that awaits something: test-support/code-examples.ts). Each runs in the
// real sandbox against a toy catalog that has the tools the examples call; a NameError (a missing
// import), a ToolError or any other exception fails it. A new example that calls a new tool
// needs that tool in TOY_TOOLS (with its parameters: the check before the run judges the
// example's calls); a new kind of example (another call form) needs only its tools.
import { afterAll, expect, it } from "vitest";
import { RUN_PYTHON_EXAMPLES } from "../electron/host/core/catalog/run-python-description.js";
import { renderStub } from "../electron/host/core/catalog/tool-stub.js";
import type { CallOutcome, SandboxTool } from "../electron/host/core/ports/run-types.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { pageExamples, type CodeExample } from "../test-support/code-examples.js";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../test-support/docker.js";

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

const TOOLS: SandboxTool[] = Object.entries(TOY_TOOLS).map(([name, tool]) => {
  const [namespace = "", method = ""] = name.split("__");
  const inputSchema = {
    type: "object",
    properties: Object.fromEntries(Object.entries(tool.params).map(([p, t]) => [p, { type: t }])),
    required: Object.keys(tool.params),
  };
  return {
    name,
    description: tool.description,
    namespace,
    method,
    schema: JSON.stringify(inputSchema),
    stub: renderStub({
      pyName: name,
      callName: `${namespace}.${method}`,
      description: tool.description,
      private: false,
      inputSchema,
    }),
  };
});

function onCall(tool: string, args: unknown): Promise<CallOutcome> {
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

const EXAMPLES: CodeExample[] = [
  ...Object.entries(RUN_PYTHON_EXAMPLES).map(([key, code]) => ({
    where: `the run_python description (${key})`,
    code,
  })),
  ...pageExamples(),
];

describeEachRuntime(docker, "every code example runs as written (%s)", (runtime) => {
  const sandbox = fx
    ? new Sandbox({ engine: fx.engine, image: fx.image, owner: testOwner(), poolSize: 0, runtime })
    : null;

  afterAll(async () => {
    await sandbox?.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it.each(EXAMPLES.map((example) => [example.where, example] as const))(
    "%s",
    async (_where, example) => {
      const result = await sandbox!.run(
        { code: example.code, deadlineSeconds: 30, tools: TOOLS },
        { onCall },
      );
      expect(result.error, `${example.where}:\n${example.code}`).toBeNull();
      expect(result.stopped).toBeNull();
    },
  );
});
