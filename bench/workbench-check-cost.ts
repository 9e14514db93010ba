// The check's cost per run, timed inside the runner, in the sandbox: the image's runner.py is
// loaded as a module by a run's code, which times its check (`_check_before_run`) on 200 lines
// of direct calls over a 100-tool catalog, beside compiling the same code (what every run does,
// check or not), each the median of ROUNDS; and the namespaces' set-up at a run's start.
// Part of bench/workbench.ts.
import { engineRuntimes } from "../electron/host/sandbox/container-engine/docker-runtimes.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import type { Catalog } from "../electron/host/core/catalog/catalog-types.js";
import { catalogSandboxTools } from "../electron/host/core/catalog/sandbox-tools.js";
import { toolsJson } from "../electron/host/core/ports/tools-json.js";
import { SANDBOX_RUNTIMES } from "../shared/settings.js";
import { report } from "./report.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const LINES = 200;

/** The check's goal per run, for LINES lines and a 100-tool catalog. */
const CHECK_GOAL_MS = 5;

/** A literal of the right type for a parameter of `schema`. */
function literal(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return JSON.stringify(schema.enum[0]);
  switch (schema.type) {
    case "integer":
      return "5";
    case "number":
      return "2.5";
    case "boolean":
      return "True";
    case "array":
      return '["a", "b"]';
    case "object":
      return '{"id": "x1"}';
    default:
      return '"text"';
  }
}

/** LINES lines, each a direct call of a tool with its required arguments and one more. */
export function callLines(catalog: Catalog): string {
  const lines: string[] = [];
  for (let i = 0; i < LINES; i++) {
    const tool = catalog.tools[i % catalog.tools.length]!;
    const properties = (tool.inputSchema.properties ?? {}) as Record<
      string,
      Record<string, unknown>
    >;
    const required = new Set((tool.inputSchema.required ?? []) as string[]);
    const names = Object.keys(properties).filter((name, k) => required.has(name) || k === 1);
    const args = names.map((name) => `${name}=${literal(properties[name]!)}`).join(", ");
    lines.push(`r${i} = await ${tool.namespace}.${tool.method ?? ""}(${args})`);
  }
  return lines.join("\n");
}

const TIMER = `
import ast, importlib.util, json, statistics, sys, time
spec = importlib.util.spec_from_file_location("runner_under_test", "/opt/codemode/runner.py")
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)
given = json.loads(sys.stdin.read())
catalog = runner._parse_tools(given["tools"])
source, limits, rounds = given["source"], {"error_max_chars": 4000}, given["rounds"]
setup, check, plain = [], [], []
for _ in range(rounds):
    g = {"__builtins__": __builtins__}
    t = time.perf_counter()
    namespaces = runner._add_namespaces(g, None, catalog, {}, {})
    setup.append(time.perf_counter() - t)
    t = time.perf_counter()
    found = runner._check_before_run(source, g, namespaces, limits)
    check.append(time.perf_counter() - t)
    assert found is None, found
    t = time.perf_counter()
    compile(source, "<code>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    plain.append(time.perf_counter() - t)
ms = lambda xs: statistics.median(xs) * 1000
print(json.dumps({"setup": ms(setup), "check": ms(check), "compile": ms(plain)}))
`;

export async function checkCost(catalog: Catalog): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const available = await engineRuntimes(status.docker);
  const source = callLines(catalog);
  const stdin = `{"tools":${toolsJson(catalogSandboxTools(catalog))},"source":${JSON.stringify(source)},"rounds":${ROUNDS}}`;
  console.log(
    `\nThe check's cost per run: ${LINES} lines of direct calls, ${catalog.tools.length} tools, median of ${ROUNDS}`,
  );
  for (const runtime of SANDBOX_RUNTIMES.filter((r) => available.includes(r))) {
    const sandbox = new Sandbox({
      engine: status.engine,
      image,
      owner: currentOwner("codemode-bench"),
      poolSize: 0,
      runtime,
    });
    try {
      const result = await sandbox.run({ code: TIMER, stdin, deadlineSeconds: 90 });
      if (result.error !== null) throw new Error(`the timer failed: ${result.error}`);
      const times = JSON.parse(result.stdout) as { setup: number; check: number; compile: number };
      console.log(
        `  ${runtime}: check ${times.check.toFixed(2)} ms, compiling the same code ${times.compile.toFixed(2)} ms, ` +
          `namespaces set up ${times.setup.toFixed(2)} ms`,
      );
      report({
        what: `the check before a run, inside the runner (${runtime}): ${LINES} lines of direct calls, a ${catalog.tools.length}-tool catalog, median of ${ROUNDS}`,
        value: times.check,
        unit: "ms",
        baseline: times.compile,
        baselineWhat: "compiling the same code, which every run does without the check",
        note: `goal: <= ${CHECK_GOAL_MS} ms; the namespaces' set-up at start ${times.setup.toFixed(2)} ms`,
      });
    } finally {
      await sandbox.close();
    }
  }
}
