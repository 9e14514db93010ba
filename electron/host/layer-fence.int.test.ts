// `npm run lint` fails on an import against the layers' direction: a real file is planted in
// the sandbox layer, importing the composition root, and linted with the project's own config
// (type-aware rules and all) by the eslint that `npm run lint` runs.
import { execFile } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../test-support/processes.js";

const ESLINT = path.join(repoRoot, "node_modules", "eslint", "bin", "eslint.js");

interface LintReport {
  messages: { ruleId: string | null; message: string }[];
}

async function lint(file: string): Promise<{ code: number; reports: LintReport[] }> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [ESLINT, "--format", "json", file],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    );
    return { code: 0, reports: JSON.parse(stdout) as LintReport[] };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, reports: JSON.parse(failed.stdout ?? "[]") as LintReport[] };
  }
}

describe("npm run lint", () => {
  it("fails on a module of the sandbox layer that imports the composition root", async () => {
    const file = path.join(repoRoot, "electron", "host", "sandbox", `planted-${process.pid}.ts`);
    writeFileSync(
      file,
      'import type { CodeModeHost } from "../app/code-mode-host.js";\n\nexport type Planted = CodeModeHost;\n',
    );
    try {
      const { code, reports } = await lint(file);
      expect(code).toBe(1);
      expect(reports.flatMap((report) => report.messages.map((m) => m.ruleId))).toEqual([
        "import-x/no-restricted-paths",
      ]);
    } finally {
      rmSync(file, { force: true });
    }
  }, 120_000);
});
