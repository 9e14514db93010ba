// Takers of one workspace lock racing for real, as separate processes (the app, a `codemode
// serve`, the CLI on one data directory): no two hold it at once. A taker makes the lock file,
// then writes its pid in it; another that read it in between took it for one left half
// written by a crash, removed it, and both held the workspace. A lock left by a process that
// died is taken over by one of them only: two that judged it stale at once both removed what
// was there, the slower one the quicker one's new lock.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { startRacing, type RacingProcess } from "../../../../test-support/racing-process.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { LOCK_FILE } from "./workspace-lock.js";

afterAll(() => removeTempDirs());

/**
 * Starts `count` takers of the lock in `dir`, each to take it `times` times, lets them go at
 * once, and says how often each found another holder inside with it.
 */
async function race(dir: string, count: number, times: number): Promise<number[]> {
  const takers: RacingProcess[] = Array.from({ length: count }, () =>
    startRacing("workspace-lock-taker.ts", [dir, String(times)]),
  );
  await Promise.all(takers.map((t) => t.ready));
  for (const t of takers) t.end("go");
  const results = await Promise.all(takers.map((t) => t.exited));
  for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
  // A count missing from the output must not read as 0, the count the tests expect.
  for (const result of results) expect(result.stdout).toMatch(/^ready\n\d+\n$/);
  return results.map((r) => Number(r.stdout.split("\n")[1]));
}

it("is held by one process at a time, however many take it at once", async () => {
  expect(await race(tempDir("cm-wslock-race-"), 8, 150)).toEqual(Array(8).fill(0));
}, 120_000);

it("left by a process that died, is taken over by one of many takers at once", async () => {
  // Past the largest pid_max Linux allows: no process has it.
  const dead = 2 ** 22 + 1;
  for (let round = 0; round < 4; round++) {
    const dir = tempDir("cm-wslock-stale-");
    writeFileSync(path.join(dir, LOCK_FILE), String(dead));
    expect(await race(dir, 6, 3)).toEqual(Array(6).fill(0));
  }
}, 120_000);
