// What the runner spends at each run's start on the tool functions of the catalog: one
// _make_tool per tool, every run, whether the code calls it or not. The real runner.py is loaded
// as a module in one python3 process and _make_tool timed over a catalog of BENCH_TOOLS names.
//
//   npx tsx bench/runner-tool-setup.ts
//
// With CODEMODE_BEFORE_CHECKOUT set to another checkout, its runner.py is timed too, in the same
// process, rounds alternating, so a change is measured before and after in one run.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { report } from "./report.js";

const TOOLS = Number(process.env.BENCH_TOOLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const RUNNER = path.resolve(import.meta.dirname, "..", "sandbox-image", "runner.py");
const BEFORE_DIR = process.env.CODEMODE_BEFORE_CHECKOUT;
const BEFORE_RUNNER =
  BEFORE_DIR === undefined ? null : path.resolve(BEFORE_DIR, "sandbox-image", "runner.py");

// Prints one JSON line: per side, each round's microseconds per tool.
const SCRIPT = `
import importlib.util, json, sys, time
sides = {}
for i, (side, file) in enumerate(json.loads(sys.argv[1])):
    spec = importlib.util.spec_from_file_location("runner_%d" % i, file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sides[side] = module
class Host:
    args_max_bytes = 16384
names = ["server_%d__tool_name_%d" % (i % 7, i) for i in range(${TOOLS})]
out = {side: [] for side in sides}
order = list(sides)
for r in range(${ROUNDS}):
    for side in (order if r % 2 == 0 else order[::-1]):
        make = sides[side]._make_tool
        host = Host()
        t = time.perf_counter()
        for name in names:
            make(host, name, "")
        out[side].append((time.perf_counter() - t) * 1e6 / len(names))
print(json.dumps(out))
`;

const runners: [string, string][] = [["after", RUNNER]];
if (BEFORE_RUNNER !== null) runners.push(["before", BEFORE_RUNNER]);
const child = spawnSync("python3", ["-c", SCRIPT, JSON.stringify(runners)], { encoding: "utf8" });
if (child.status !== 0) throw new Error(`python3 failed: ${child.stderr}`);
const rounds = JSON.parse(child.stdout) as Record<string, number[]>;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const after = median(rounds.after!);
const before = rounds.before === undefined ? null : median(rounds.before);
const what = `the runner's tool functions at a run's start, per catalog tool (${TOOLS} tools)`;
const note = `median of ${ROUNDS} rounds${before === null ? "" : ", sides alternating"}`;
report(
  before === null
    ? { what, value: after * 1000, unit: "ns", note }
    : {
        what,
        value: after * 1000,
        unit: "ns",
        baseline: before * 1000,
        baselineWhat: `the same with ${BEFORE_RUNNER}`,
        note,
      },
);
