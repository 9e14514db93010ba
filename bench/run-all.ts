// Runs every benchmark in turn (each prints its results as it goes, through bench/report.ts),
// then prints all of them as one table, with the date and the machine. `--write-readme` also
// writes that table into README's Performance section (between its bench markers);
// `--only a,b` runs just those benches (by file name, without `.ts`). A bench that fails is
// named in the table and the others still run.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findDocker } from "../electron/host/docker/docker-status.js";
import {
  beginBench,
  machineLine,
  machineNow,
  markdownTable,
  record,
  replaceBetweenMarkers,
  reportedRows,
} from "./report.js";

/** In the order they run: quick in-process benches first, the million-entry log ones last. */
const BENCHES = [
  "sandbox-latency",
  "sandbox-preload",
  "pool-burst",
  "concurrent-calls",
  "shim-round-trip",
  "hostile-done-line",
  "schema-pattern",
  "run-cost-flood",
  "audit-checkpoint",
  "image-lines",
  "bridge-overhead",
  "context-economy",
  "audit-index",
  "audit-export-memory",
];

function option(name: string): string | null {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? "") : null;
}

const readme = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "README.md");
const writeReadme = process.argv.includes("--write-readme");
// Checked before the long run, not after it: a README without the markers fails at once.
if (writeReadme) replaceBetweenMarkers(readFileSync(readme, "utf8"), "");

const only = option("--only")?.split(",").filter(Boolean) ?? null;
const chosen = only ? BENCHES.filter((b) => only.includes(b)) : BENCHES;
const docker = await findDocker();
// Read before any bench loads the machine.
const machine = machineNow(docker.state === "ready" ? docker.version : null);
console.log(`bench run: ${machineLine(machine)}\n`);

const failed: string[] = [];
for (const name of chosen) {
  beginBench(name);
  console.log(`\n== ${name}`);
  const started = performance.now();
  try {
    await import(`./${name}.js`);
  } catch (error) {
    failed.push(name);
    console.log(record({ what: "failed", value: Number.NaN, note: String(error).slice(0, 200) }));
  }
  console.log(`(${name}: ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

const table = markdownTable(reportedRows(), machine);
console.log(`\n${table}`);
if (failed.length > 0) console.log(`\nfailed: ${failed.join(", ")}`);
if (writeReadme) {
  writeFileSync(readme, replaceBetweenMarkers(readFileSync(readme, "utf8"), table));
  console.log(`\nwrote the table into ${path.basename(readme)}`);
}
// Benches leave no handle open on purpose, but a dockerode agent may keep the loop alive.
process.exit(failed.length > 0 ? 1 : 0);
