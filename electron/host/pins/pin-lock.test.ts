import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PinFileLocked, pinLockPath, withPinLock } from "./pin-lock.js";

describe("withPinLock", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-pin-lock-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);

  it("holds FILE.lock while the job runs and removes it after, also when the job throws", async () => {
    const pins = file("a.json");
    await withPinLock(pins, () => {
      expect(readFileSync(pinLockPath(pins), "utf8")).toMatch(new RegExp(`^${process.pid} `));
      return Promise.resolve();
    });
    expect(existsSync(pinLockPath(pins))).toBe(false);
    await expect(withPinLock(pins, () => Promise.reject(new Error("boom")))).rejects.toThrow(
      "boom",
    );
    expect(existsSync(pinLockPath(pins))).toBe(false);
  });

  it("runs jobs one at a time", async () => {
    const pins = file("b.json");
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withPinLock(pins, async () => {
          inside += 1;
          most = Math.max(most, inside);
          await new Promise((resolve) => setTimeout(resolve, 20));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
  });

  it("waits for a live holder, then fails naming the lock", async () => {
    const pins = file("c.json");
    writeFileSync(pinLockPath(pins), `${process.ppid} 00 ${Date.now()}\n`);
    await expect(withPinLock(pins, () => Promise.resolve(), { waitMs: 100 })).rejects.toThrow(
      PinFileLocked,
    );
    await expect(withPinLock(pins, () => Promise.resolve(), { waitMs: 100 })).rejects.toThrow(
      `delete ${pinLockPath(pins)}`,
    );
    // Still the holder's: a waiter that gave up removes nothing.
    expect(readFileSync(pinLockPath(pins), "utf8")).toContain(`${process.ppid} 00`);
  });

  it("takes over a lock whose holder died, one too old, and an empty one left long ago", async () => {
    const dead = file("d.json");
    writeFileSync(pinLockPath(dead), `4000000 00 ${Date.now()}\n`);
    expect(await withPinLock(dead, () => Promise.resolve("ran"), { isAlive: () => false })).toBe(
      "ran",
    );
    const old = file("e.json");
    writeFileSync(pinLockPath(old), `${process.ppid} 00 ${Date.now() - 10_000}\n`);
    expect(await withPinLock(old, () => Promise.resolve("ran"), { staleMs: 5_000 })).toBe("ran");
    const empty = file("f.json");
    writeFileSync(pinLockPath(empty), "");
    const past = new Date(Date.now() - 10_000);
    utimesSync(pinLockPath(empty), past, past);
    expect(await withPinLock(empty, () => Promise.resolve("ran"), { staleMs: 5_000 })).toBe("ran");
    for (const pins of [dead, old, empty]) expect(existsSync(pinLockPath(pins))).toBe(false);
  });
});
