// What every test that starts the CLI as a real process needs: where it is, a check that the
// build it runs is current, the environment it may see, and waiting for it to end.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pidAlive } from "../electron/host/util/process-place.js";
import { until } from "./wait.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The CLI entry; it imports `dist/`, so the build must be current. */
export const CODEMODE_BIN = path.join(repoRoot, "bin", "codemode.js");

/**
 * The CLI runs from `dist/`: a missing or stale build would make the tests prove things about
 * old code. Throws, naming the command to run, when a host source is newer than its build.
 */
export function assertBuilt(): void {
  const stale: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(path.join(repoRoot, dir))) {
      const rel = path.join(dir, name);
      if (statSync(path.join(repoRoot, rel)).isDirectory()) {
        walk(rel);
      } else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) {
        const built = path.join(repoRoot, "dist", rel.replace(/\.ts$/, ".js"));
        if (
          !existsSync(built) ||
          statSync(built).mtimeMs < statSync(path.join(repoRoot, rel)).mtimeMs
        ) {
          stale.push(rel);
        }
      }
    }
  };
  for (const dir of [path.join("electron", "host"), "shared", "test-servers"]) walk(dir);
  if (stale.length > 0) {
    throw new Error(
      `dist/ is missing or older than ${stale.slice(0, 3).join(", ")}${stale.length > 3 ? ", ..." : ""}: ` +
        "run `npx tsc -p tsconfig.build.json` first",
    );
  }
}

/** Only what the CLI needs of this environment (Docker's variables): not the test runner's. */
export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { CODEMODE_HOME: home, ...extra };
  for (const name of ["PATH", "HOME", "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG"]) {
    const value = process.env[name];
    if (value !== undefined && env[name] === undefined) env[name] = value;
  }
  return env;
}

export const processIsAlive = pidAlive;

/** Resolves once `pid` is gone; rejects after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  await until(() => !processIsAlive(pid), `process ${pid} to exit`, timeoutMs);
}

/**
 * Whether `pid` is running: alive and not a zombie. A process whose parent died is reparented
 * to pid 1, and a pid 1 that does not reap (a container's own init) keeps the ended ones as
 * zombies, which a signal 0 still finds.
 */
export function processRunning(pid: number): boolean {
  if (!processIsAlive(pid)) return false;
  try {
    const state = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
    return state.trim() !== "" && !state.trim().startsWith("Z");
  } catch {
    // ps exits 1 when there is no such process.
    return false;
  }
}

/** Pids of `pid`'s children, their children and so on (POSIX, through `pgrep -P`). */
export function descendantPids(pid: number): number[] {
  let children: number[];
  try {
    children = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map(Number);
  } catch {
    // pgrep exits 1 when there are none.
    return [];
  }
  return children.flatMap((child) => [child, ...descendantPids(child)]);
}

/** The process group of `pid` (POSIX), or null once it is gone. */
export function processGroupOf(pid: number): number | null {
  try {
    const text = execFileSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" });
    return text.trim() === "" ? null : Number(text.trim());
  } catch {
    return null;
  }
}
