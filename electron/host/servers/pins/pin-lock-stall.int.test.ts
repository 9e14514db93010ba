// A taker that stalls between writing its whole lock (FILE.lock.TOKEN) and linking it to
// FILE.lock (a machine asleep, a process stopped, an event loop blocked) past
// PIN_LOCK_STALE_MS: meanwhile another process takes the lock and clears stray whole locks
// that old, this taker's among them. The taker must still get the lock, not fail its save.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it, vi } from "vitest";
import { pinLockPath, withPinLock, PIN_LOCK_STALE_MS } from "./pin-lock.js";
import { repoRoot } from "../../../../test-support/processes.js";

const stall = vi.hoisted(() => ({ beforeLink: null as ((whole: string) => Promise<void>) | null }));

// link() is where the taker resumes: the stall (and what another process did during it) is run
// just before it, once.
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    link: async (from: string, to: string): Promise<void> => {
      const hook = stall.beforeLink;
      stall.beforeLink = null;
      if (hook !== null) await hook(from);
      return actual.link(from, to);
    },
  };
});

const here = path.dirname(fileURLToPath(import.meta.url));
const root = repoRoot;
const pinLockModule = path.join(here, "pin-lock.ts");

/** Another process saving `file` under its lock, with the real pin-lock module. */
async function saveInAnotherProcess(file: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { withPinLock } = await import(process.argv[1]);
       await withPinLock(process.argv[2], () => Promise.resolve());`,
      pinLockModule,
      file,
    ],
    { cwd: root },
  );
}

describe("a pin lock taker stalled before linking its whole lock", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-pin-stall-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("still takes the lock when another process cleared its whole lock as stray meanwhile", async () => {
    const pins = path.join(dir, "servers.pins.json");
    let sweptOurs = false;
    stall.beforeLink = async (whole) => {
      // The stall: the whole lock now looks written longer ago than the stale time.
      const past = (Date.now() - PIN_LOCK_STALE_MS - 10_000) / 1000;
      utimesSync(whole, past, past);
      await saveInAnotherProcess(pins);
      sweptOurs = !existsSync(whole);
    };
    expect(await withPinLock(pins, () => Promise.resolve("saved"))).toBe("saved");
    expect(sweptOurs).toBe(true);
    expect(existsSync(pinLockPath(pins))).toBe(false);
  }, 20_000);
});
