// Prints the files and tests of each vitest project, for docs/development.md: each
// project's tests are collected (`vitest list`, which imports the files but runs no test), so
// the counts are vitest's own. `node scripts/test-counts.mjs [project...]`; e2e is the slow one
// (its files are collected one after another: minutes on a loaded 2-core machine).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const PROJECTS = ["unit", "unit-mocks", "integration", "docker", "e2e"];
const projects = process.argv.length > 2 ? process.argv.slice(2) : PROJECTS;
const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-test-counts-"));
let files = 0;
let tests = 0;
try {
  for (const project of projects) {
    const out = path.join(dir, `${project}.json`);
    execFileSync("npx", ["vitest", "list", "--project", project, `--json=${out}`], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    /** @type {{ file: string }[]} */
    const listed = JSON.parse(readFileSync(out, "utf8"));
    const projectFiles = new Set(listed.map((test) => test.file)).size;
    files += projectFiles;
    tests += listed.length;
    console.log(`${project}: ${projectFiles} files, ${listed.length} tests`);
  }
  if (projects.length > 1) console.log(`all: ${files} files, ${tests} tests`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
