import { readFile, stat, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import {
  AlreadyRunningError,
  acquireInstanceLock,
  lockPath,
  removeStaleSocket,
  type InstanceLock,
} from "./instance-lock.js";
import { LocalSocketListener } from "./socket-listener.js";
import { prepareSocketDir, socketLocationFor } from "./socket-path.js";
import { deadPid, leaveStaleSocket } from "../../../../test-support/local-access.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";

const locks: InstanceLock[] = [];
const listeners: LocalSocketListener[] = [];

afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  await Promise.all(locks.splice(0).map((l) => l.release()));
  removeTempDirs();
});

async function lock(dataDir: string, options: Parameters<typeof acquireInstanceLock>[1] = {}) {
  const taken = await acquireInstanceLock(dataDir, options);
  locks.push(taken);
  return taken;
}

describe("instance lock", () => {
  it("holds our pid in <dataDir>/host.lock, 0600, and is gone after release", async () => {
    const dataDir = tempDir("cm-la-");
    const taken = await lock(dataDir);
    expect(taken.path).toBe(lockPath(dataDir));
    expect(await readFile(taken.path, "utf8")).toBe(`${process.pid}\n`);
    expect((await stat(taken.path)).mode & 0o777).toBe(0o600);
    await taken.release();
    await expect(stat(taken.path)).rejects.toThrow(/ENOENT/);
    locks.push(await acquireInstanceLock(dataDir));
  });

  it("refuses a second host with 'Code Mode is already running for <dataDir> (pid N)'", async () => {
    const dataDir = tempDir("cm-la-");
    await lock(dataDir);
    const error = await acquireInstanceLock(dataDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyRunningError);
    expect((error as Error).message).toContain(
      `Code Mode is already running for ${dataDir} (pid ${process.pid})`,
    );
  });

  it("refuses when another live process holds the lock", async () => {
    const dataDir = tempDir("cm-la-");
    // pid 1 is always alive.
    await writeFile(lockPath(dataDir), "1\n");
    await expect(acquireInstanceLock(dataDir)).rejects.toThrow(
      `Code Mode is already running for ${dataDir} (pid 1)`,
    );
  });

  it("takes over a stale lock whose pid is dead", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(lockPath(dataDir), `${await deadPid()}\n`);
    const taken = await lock(dataDir);
    expect(await readFile(taken.path, "utf8")).toBe(`${process.pid}\n`);
  });

  it("takes over a lock with our own pid that this process never took (pid reuse)", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(lockPath(dataDir), `${process.pid}\n`);
    const taken = await lock(dataDir);
    expect(taken.pid).toBe(process.pid);
  });

  it("takes over a garbage lock file", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(lockPath(dataDir), "garbage");
    await lock(dataDir);
  });

  it("refuses when the lock looks stale but the socket answers", async () => {
    const dataDir = tempDir("cm-la-");
    const listener = new LocalSocketListener();
    listeners.push(listener);
    await listener.listen({ dataDir, onConnection: (socket) => socket.destroy() });
    // Someone replaced the live host's lock by a dead pid: the socket still tells the truth.
    const dead = await deadPid();
    await writeFile(lockPath(dataDir), `${dead}\n`);
    const error = await acquireInstanceLock(dataDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyRunningError);
    expect((error as Error).message).toContain(`Code Mode is already running for ${dataDir}`);
    // It did not take the lock over.
    expect(await readFile(lockPath(dataDir), "utf8")).toBe(`${dead}\n`);
  });

  it("removes a stale socket file nothing listens on", async () => {
    const dataDir = tempDir("cm-la-");
    const location = socketLocationFor(dataDir);
    await prepareSocketDir(location);
    await leaveStaleSocket(location.socketPath);
    expect((await stat(location.socketPath)).isSocket()).toBe(true);
    await removeStaleSocket(dataDir, location);
    await expect(stat(location.socketPath)).rejects.toThrow(/ENOENT/);
  });
});
