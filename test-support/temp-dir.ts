// The one temporary-directory helper of the tests: every directory a test makes is removed by
// removeTempDirs() in its last afterAll, even when the test failed half-way.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const made = new Set<string>();

/** A fresh directory under os.tmpdir() (0700, short enough for a socket path inside it). */
export function tempDir(prefix = "codemode-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Also removes another path a test made (say a fallback socket directory). */
export function alsoRemove(dir: string): void {
  made.add(dir);
}

/** Removes every directory tempDir() made so far; call it once nothing uses them any more. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
