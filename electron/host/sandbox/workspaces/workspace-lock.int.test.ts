// Takers of one workspace lock racing for real, as separate processes (the app, a `codemode
// serve`, the CLI on one data directory): no two hold it at once. A taker makes the lock file,
// then writes its pid in it; another that read it in between took it for one left half
// written by a crash, removed it, and both held the workspace. A lock left by a process that
// died is taken over by one of them only: two that judged it stale at once both removed what
// was there, the slower one the quicker one's new lock.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { repoRoot } from "../../../../test-support/processes.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { LOCK_FILE } from "./workspace-lock.js";

afterAll(() => removeTempDirs());

const taker = path.join(repoRoot, "test-support", "workspace-lock-taker.ts");

function start(dir: string, times: number) {
  const child = spawn(process.execPath, ["--import", "tsx", taker, dir, String(times)], {
    stdio: ["pipe", "pipe", "pipe"],
    cwd: repoRoot,
  });
  let stdout = "";
  let stderr = "";
  let readied: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readied = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith("ready\n")) readied();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stdout, stderr })),
  );
  void exited.then(() => readied());
  return { ready, go: () => child.stdin.end("go\n"), exited };
}

it("is held by one process at a time, however many take it at once", async () => {
  const dir = tempDir("cm-wslock-race-");
  const takers = Array.from({ length: 8 }, () => start(dir, 150));
  await Promise.all(takers.map((t) => t.ready));
  for (const t of takers) t.go();
  const results = await Promise.all(takers.map((t) => t.exited));
  for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
  expect(results.map((r) => Number(r.stdout.split("\n")[1]))).toEqual(Array(8).fill(0));
}, 120_000);

it("left by a process that died, is taken over by one of many takers at once", async () => {
  // Past the largest pid_max Linux allows: no process has it.
  const dead = 2 ** 22 + 1;
  for (let round = 0; round < 4; round++) {
    const dir = tempDir("cm-wslock-stale-");
    writeFileSync(path.join(dir, LOCK_FILE), String(dead));
    const takers = Array.from({ length: 6 }, () => start(dir, 3));
    await Promise.all(takers.map((t) => t.ready));
    for (const t of takers) t.go();
    const results = await Promise.all(takers.map((t) => t.exited));
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(results.map((r) => Number(r.stdout.split("\n")[1]))).toEqual(Array(6).fill(0));
  }
}, 120_000);
