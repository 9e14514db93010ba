// Runs every benchmark in turn (each prints its results as it goes, through bench/report.ts),
// then prints all of them as one table, with the date and the machine. `--write-docs` also
// writes that table into docs/performance.md (between its bench markers);
// `--only a,b` runs just those benches (by file name, without `.ts`). A bench that fails is
// named in the table and the others still run.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { assertHostBuilt } from "../test-support/daemon.js";
import {
  beginBench,
  formatDuration,
  machineLine,
  machineNow,
  markdownTable,
  recordFailure,
  replaceBetweenMarkers,
  reportedRows,
} from "./report.js";

/** In the order they run: quick in-process benches first, the million-entry log ones last. */
const BENCHES = [
  "sandbox-latency",
  "remote-engine-latency",
  "sandbox-preload",
  "workspace-cost",
  "runner-compiled",
  "pool-burst",
  "pool-after-burst",
  "concurrent-calls",
  "shim-round-trip",
  "warm-start-trace",
  "hostile-done-line",
  "schema-pattern",
  "run-cost-flood",
  "audit-checkpoint",
  "image-lines",
  "bridge-overhead",
  "runner-call-loop",
  "context-economy",
  "workbench",
  "catalog-start-line",
  "audit-index",
  "audit-export-memory",
];

function option(name: string): string | null {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? "") : null;
}

const page = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "docs",
  "performance.md",
);
const writeDocs = process.argv.includes("--write-docs");
// Checked before the long run, not after it: a page without the markers fails at once.
if (writeDocs) replaceBetweenMarkers(readFileSync(page, "utf8"), "");

const only = option("--only")?.split(",").filter(Boolean) ?? null;
const unknown = only?.filter((name) => !BENCHES.includes(name)) ?? [];
if (unknown.length > 0) {
  console.error(`no such bench: ${unknown.join(", ")} (the benches: ${BENCHES.join(", ")})`);
  process.exit(2);
}
const chosen = only ? BENCHES.filter((b) => only.includes(b)) : BENCHES;
// Most benches run the built host (dist/): a stale build fails them all, so say it now rather
// than after twenty minutes of a run whose table is mostly failures.
try {
  assertHostBuilt();
} catch (error) {
  console.error(String(error instanceof Error ? error.message : error));
  process.exit(2);
}
const docker = await findDocker();
// Read before any bench loads the machine.
const machine = machineNow(docker.state === "ready" ? docker.version : null);
console.log(`bench run: ${machineLine(machine)}\n`);

const failed: string[] = [];
const timing: { bench: string; seconds: number }[] = [];
let running = "";
// A bench's stray promise that rejects later must not end the whole run: it is named as a
// failure of the bench running then (which is the bench that made it, unless it leaked one).
const strayFailure = (error: unknown): void => {
  if (!failed.includes(running)) failed.push(running);
  console.log(recordFailure(new Error(`left running and failed: ${String(error)}`)));
};
process.on("unhandledRejection", strayFailure);
process.on("uncaughtException", strayFailure);

const runStarted = performance.now();
for (const name of chosen) {
  running = name;
  beginBench(name);
  console.log(`\n== ${name}`);
  const started = performance.now();
  const rowsBefore = reportedRows().length;
  try {
    await import(`./${name}.js`);
    if (reportedRows().length === rowsBefore) throw new Error("it reported no result");
  } catch (error) {
    failed.push(name);
    console.log(recordFailure(error));
  }
  const seconds = (performance.now() - started) / 1000;
  timing.push({ bench: name, seconds });
  console.log(`(${name}: ${formatDuration(seconds)})`);
}
const totalSeconds = (performance.now() - runStarted) / 1000;

const table = markdownTable(reportedRows(), machine, { totalSeconds, benches: timing });
console.log(`\n${table}`);
if (failed.length > 0) console.log(`\nfailed: ${failed.join(", ")}`);
console.log(`\nwhole run: ${formatDuration(totalSeconds)} (${chosen.length} benches)`);
if (writeDocs) {
  writeFileSync(page, replaceBetweenMarkers(readFileSync(page, "utf8"), table));
  console.log(`\nwrote the table into docs/${path.basename(page)}`);
}
// Benches leave no handle open on purpose, but a dockerode agent may keep the loop alive.
process.exit(failed.length > 0 ? 1 : 0);
