// The mark of a keep under way: readers of this process wait on it directly, readers of another
// process see its file and wait while the process that wrote it is alive; a mark left by a
// process that is gone (or by this one in an earlier life) is not waited for.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import {
  KEEPING_FILE,
  LOCK_FILE,
  LOCK_UNNAMED_GRACE_MS,
  LOCK_WAIT_MS,
  markKeeping,
  takeWorkspaceLock,
  waitForKeep,
  WorkspaceBusy,
} from "./workspace-lock.js";

afterAll(() => removeTempDirs());

const OTHER_PID = 4_000_000;

describe("a keep's mark", () => {
  it("a reader in this process waits until the mark ends; the file goes with it", async () => {
    const file = path.join(tempDir("cm-wslock-"), KEEPING_FILE);
    const end = await markKeeping(file);
    expect(existsSync(file)).toBe(true);
    let waited = false;
    const reading = waitForKeep(file, "w").then(() => (waited = true));
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(waited).toBe(false);
    await end();
    await reading;
    expect(existsSync(file)).toBe(false);
  });

  it("a reader waits for another live process's mark, and not for a dead one's", async () => {
    const file = path.join(tempDir("cm-wslock-"), KEEPING_FILE);
    writeFileSync(file, String(OTHER_PID));
    let alive = true;
    let waited = false;
    const reading = waitForKeep(file, "w", () => alive).then(() => (waited = true));
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(waited).toBe(false);
    alive = false;
    await reading;
    // A mark naming this process, with no keep of it under way here, is left from a crash.
    writeFileSync(file, String(process.pid));
    await waitForKeep(file, "w", () => true);
  });

  it("gives up on this process's keep past the wait, saying so; the keep goes on", async () => {
    const file = path.join(tempDir("cm-wslock-"), KEEPING_FILE);
    const end = await markKeeping(file);
    vi.useFakeTimers();
    try {
      const reading = waitForKeep(file, 'the workspace "w"');
      const refused = expect(reading).rejects.toThrow(/"w" is still being kept/);
      await vi.advanceTimersByTimeAsync(LOCK_WAIT_MS);
      await refused;
    } finally {
      vi.useRealTimers();
    }
    expect(existsSync(file)).toBe(true);
    await end();
    await waitForKeep(file, "w");
  });

  it("gives up on another process's keep past the wait, saying so", async () => {
    const file = path.join(tempDir("cm-wslock-"), KEEPING_FILE);
    writeFileSync(file, String(OTHER_PID));
    // Each look at the clock finds the wait's time gone by.
    let now = Date.now();
    const clock = vi.spyOn(Date, "now").mockImplementation(() => (now += LOCK_WAIT_MS));
    try {
      await expect(waitForKeep(file, 'the workspace "w"', () => true)).rejects.toThrow(
        WorkspaceBusy,
      );
    } finally {
      clock.mockRestore();
    }
  });
});

describe("a workspace lock naming no holder", () => {
  // A fresh one is a live taker's between making it and writing its pid: waited for, not taken
  // (workspace-lock.int.test.ts races real processes for it).
  it("is taken over once older than a taker needs to name itself: its taker died", async () => {
    const file = path.join(tempDir("cm-wslock-"), LOCK_FILE);
    writeFileSync(file, "");
    const then = (Date.now() - LOCK_UNNAMED_GRACE_MS - 1_000) / 1000;
    utimesSync(file, then, then);
    const release = await takeWorkspaceLock(file, "w", () => true);
    expect(readFileSync(file, "utf8")).toBe(String(process.pid));
    await release();
  });
});

describe("a workspace lock given back", () => {
  it("leaves a lock another process took where the workspace was, once moved away", async () => {
    const dir = path.join(tempDir("cm-wslock-"), "w");
    mkdirSync(dir);
    const file = path.join(dir, LOCK_FILE);
    const release = await takeWorkspaceLock(file, "w");
    // As a removal does while it holds the lock; another process then makes the workspace
    // anew and takes its lock.
    renameSync(dir, `${dir}.removing`);
    mkdirSync(dir);
    writeFileSync(file, String(OTHER_PID));
    await release();
    expect(readFileSync(file, "utf8")).toBe(String(OTHER_PID));
  });
});
