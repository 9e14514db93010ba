import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { Worker } from "node:worker_threads";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  currentTaker,
  PinFileLocked,
  pinLockPath,
  takerPlace,
  withPinLock,
  PIN_LOCK_ELSEWHERE_STALE_MS,
  PIN_LOCK_DAMAGED_GRACE_MS,
  PIN_LOCK_STALE_MS,
  PIN_LOCK_WAIT_MS,
} from "./pin-lock.js";

/** Where this process's pids mean something, as its locks say. */
const here = currentTaker().place;
/** Another pid namespace's place (a container sharing the file). */
const elsewhere = "0123456789abcdef";

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

  it("never shows a lock empty or half-written while its taker lives, and leaves nothing beside it", async () => {
    const pins = file("whole.json");
    const lock = pinLockPath(pins);
    // Another thread reads the lock as another writer would, as fast as it can, while this one
    // takes and releases it over and over: what it ever found other than a whole lock.
    const reader = new Worker(
      `const { readFileSync } = require("node:fs");
       const { parentPort, workerData } = require("node:worker_threads");
       const odd = new Set();
       let stop = false;
       parentPort.on("message", () => (stop = true));
       (function loop() {
         for (let i = 0; i < 2000; i++) {
           let text;
           try { text = readFileSync(workerData, "utf8"); } catch { continue; }
           if (text.trim().split(" ").length !== 4) odd.add(JSON.stringify(text));
         }
         if (stop) parentPort.postMessage([...odd]);
         else setImmediate(loop);
       })();`,
      { eval: true, workerData: lock },
    );
    for (let round = 0; round < 300; round++) await withPinLock(pins, () => Promise.resolve());
    const odd = new Promise<string[]>((resolve) => reader.once("message", resolve));
    reader.postMessage("stop");
    expect(await odd).toEqual([]);
    await reader.terminate();
    expect(readdirSync(dir).filter((name) => name.startsWith("whole.json"))).toEqual([]);
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
    writeFileSync(pinLockPath(pins), `${process.ppid} 00 ${Date.now()} ${here}\n`);
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
    writeFileSync(pinLockPath(dead), `4000000 00 ${Date.now()} ${here}\n`);
    expect(await withPinLock(dead, () => Promise.resolve("ran"), { isAlive: () => false })).toBe(
      "ran",
    );
    const old = file("e.json");
    writeFileSync(pinLockPath(old), `${process.ppid} 00 ${Date.now() - 10_000} ${here}\n`);
    expect(await withPinLock(old, () => Promise.resolve("ran"), { staleMs: 5_000 })).toBe("ran");
    const empty = file("f.json");
    writeFileSync(pinLockPath(empty), "");
    const past = new Date(Date.now() - 10_000);
    utimesSync(pinLockPath(empty), past, past);
    expect(await withPinLock(empty, () => Promise.resolve("ran"), { staleMs: 5_000 })).toBe("ran");
    for (const pins of [dead, old, empty]) expect(existsSync(pinLockPath(pins))).toBe(false);
  });

  const ran = () => Promise.resolve("ran");
  const aged = (lock: string, ms: number) => {
    const past = new Date(Date.now() - ms);
    utimesSync(lock, past, past);
  };

  it("takes over an empty or half-written lock once its file is older than a short grace, not the stale time", async () => {
    // A taker that died between creating the lock and writing it: before, every writer
    // waited the whole 60 s stale time for it (an empty one) and failed meanwhile.
    const empty = file("g.json");
    writeFileSync(pinLockPath(empty), "");
    aged(pinLockPath(empty), PIN_LOCK_DAMAGED_GRACE_MS + 1_000);
    expect(await withPinLock(empty, ran, { waitMs: 500 })).toBe("ran");
    // A fresh one may be a live taker about to write: it is waited for.
    const fresh = file("h.json");
    for (const content of ["", `${process.ppid} 0`]) {
      writeFileSync(pinLockPath(fresh), content);
      await expect(withPinLock(fresh, ran, { waitMs: 200 })).rejects.toThrow(PinFileLocked);
      aged(pinLockPath(fresh), PIN_LOCK_DAMAGED_GRACE_MS + 1_000);
      expect(await withPinLock(fresh, ran, { waitMs: 500 })).toBe("ran");
    }
  });

  it("takes over a lock naming our own pid with a token none of our jobs holds", async () => {
    // Left by an earlier process of this pid namespace that had our pid (a restart reusing
    // it): before, our pid looked alive (it is us) and the lock was kept for 60 s.
    const pins = file("i.json");
    writeFileSync(pinLockPath(pins), `${process.pid} 0badc0de ${Date.now()} ${here}\n`);
    expect(await withPinLock(pins, ran, { waitMs: 500 })).toBe("ran");
    // serve as pid 1 in a container, its earlier crashed run also pid 1 in the same namespace.
    writeFileSync(pinLockPath(pins), `1 0badc0de ${Date.now()} ${here}\n`);
    const pid1 = { taker: { pid: 1, place: here }, waitMs: 500 };
    expect(await withPinLock(pins, ran, pid1)).toBe("ran");
    expect(existsSync(pinLockPath(pins))).toBe(false);
  });

  it("keeps a finished job's result when its lock cannot be removed, and our next job takes the lock over", async () => {
    // A removal gate that stays taken fails the release only after 10 s
    // (2 * LOCK_GATE_STALE_MS); the job is done and its file written by then, so the release's
    // failure must not become the job's. The lock left behind names our pid with a token none
    // of our jobs holds: the next one takes it over at once.
    const pins = file("j.json");
    const stuck = () => Promise.reject(new Error("could not enter the gate: it stays taken"));
    expect(await withPinLock(pins, ran, { removeLock: stuck })).toBe("ran");
    expect(readFileSync(pinLockPath(pins), "utf8")).toMatch(new RegExp(`^${process.pid} `));
    // Within a wait of 500 ms: a lock still judged held would fail it (PinFileLocked).
    expect(await withPinLock(pins, ran, { waitMs: 500 })).toBe("ran");
    expect(existsSync(pinLockPath(pins))).toBe(false);
  });

  it("judges a lock taken in another pid namespace by its age alone, even when its pid is ours", async () => {
    const pins = file("j.json");
    // A live writer elsewhere whose pid is dead here, or is ours (two containers' serve both
    // pid 1): kept. Before, the first was taken over at once, a live writer's hold broken.
    for (const pid of [4000000, process.pid]) {
      writeFileSync(pinLockPath(pins), `${pid} 00 ${Date.now()} ${elsewhere}\n`);
      await expect(withPinLock(pins, ran, { waitMs: 200, isAlive: () => false })).rejects.toThrow(
        PinFileLocked,
      );
    }
    // A serve restarted as pid 1 in a new container after a crash mid-save: the old lock,
    // also pid 1, goes past PIN_LOCK_ELSEWHERE_STALE_MS, within one writer's wait (before: 60 s,
    // so that writer failed).
    const started = Date.now();
    const left = started - PIN_LOCK_ELSEWHERE_STALE_MS + 300;
    writeFileSync(pinLockPath(pins), `1 00 ${left} ${elsewhere}\n`);
    const pid1 = { taker: { pid: 1, place: here }, waitMs: 2_000 };
    expect(await withPinLock(pins, ran, pid1)).toBe("ran");
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // An old version's lock says no place: the same.
    writeFileSync(pinLockPath(pins), `${process.ppid} 00 ${Date.now() - 6_000}\n`);
    expect(await withPinLock(pins, ran, { waitMs: 500 })).toBe("ran");
  });

  it("clears whole locks left beside the lock by a taker that died before unlinking them, once stale", async () => {
    const pins = file("strays.json");
    const lock = pinLockPath(pins);
    // What a taker killed between writing its whole lock and unlinking it leaves behind.
    const old = `${lock}.00112233aabbccdd`;
    const fresh = `${lock}.44556677eeff0011`;
    const other = `${lock}.not-a-token`;
    for (const stray of [old, fresh, other])
      writeFileSync(stray, `999999 x ${Date.now()} ${here}\n`);
    const past = (Date.now() - PIN_LOCK_STALE_MS - 10_000) / 1000;
    utimesSync(old, past, past);
    await withPinLock(pins, () => Promise.resolve());
    // The stale one goes; one a live taker may still be linking stays, and so do other names.
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });

  it("lets a writer wait less for a lock taken elsewhere than it waits in all", () => {
    expect(PIN_LOCK_ELSEWHERE_STALE_MS).toBeLessThan(PIN_LOCK_WAIT_MS);
    expect(PIN_LOCK_DAMAGED_GRACE_MS).toBeLessThan(PIN_LOCK_WAIT_MS);
  });
});

describe("takerPlace", () => {
  const where = { host: "box", boot: "b00t", pidns: "pid:[4026531836]" };
  it("is the same for every process of one pid namespace, host and boot", () => {
    expect(takerPlace(where, "linux")).toBe(takerPlace({ ...where }, "linux"));
    expect(takerPlace(where, "linux")).not.toBe(
      takerPlace({ ...where, pidns: "pid:[1]" }, "linux"),
    );
    expect(takerPlace({ host: "mac", boot: "", pidns: "" }, "darwin")).toBe(
      takerPlace({ host: "mac", boot: "", pidns: "" }, "darwin"),
    );
  });

  it("is a process's own on Linux when its pid namespace cannot be read", () => {
    // Two containers with one hostname, /proc restricted: not one place.
    const blind = { host: "box", boot: "b00t", pidns: "" };
    expect(takerPlace(blind, "linux")).not.toBe(takerPlace(blind, "linux"));
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ PIN_LOCK_STALE_MS, PIN_LOCK_DAMAGED_GRACE_MS, PIN_LOCK_ELSEWHERE_STALE_MS }).toEqual({
      PIN_LOCK_STALE_MS: 60_000,
      PIN_LOCK_DAMAGED_GRACE_MS: 2_000,
      PIN_LOCK_ELSEWHERE_STALE_MS: 5_000,
    });
  });
});
