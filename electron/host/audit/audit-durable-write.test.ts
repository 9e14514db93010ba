import {
  constants as fsConstants,
  realpathSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { callInput } from "../../../test-support/audit-fixtures.js";
import { AuditLog } from "./audit-log.js";
import { openForAppend } from "./audit-durable-write.js";
import { useAuditDir } from "../../../test-support/audit-dir.js";

let dir: string;
useAuditDir((made) => (dir = made));

/** The open flags of this process's descriptors open on `file`, as Linux reports them. */
function flagsOfOpen(file: string): number[] {
  // /proc names the file by its real path: a temporary directory may be reached by a link.
  const real = realpathSync(file);
  const flags: number[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed meanwhile (the directory listing's own descriptor)
    }
    if (target !== real) continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    const octal = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (octal !== undefined) flags.push(parseInt(octal, 8));
  }
  return flags;
}

const dsync = (flags: number): boolean => (flags & fsConstants.O_DSYNC) !== 0;

// /proc shows what the kernel was really asked for. Only Linux opens O_DSYNC, so on Linux
// audit-log.test.ts exercises that path, not the write-then-fdatasync one macOS and Windows take.
describe.runIf(process.platform === "linux")("audit appends are durable in one call", () => {
  it("openForAppend opens O_DSYNC when durable, and plainly when not", async () => {
    mkdirSync(dir, { recursive: true });
    const durable = await openForAppend(path.join(dir, "a.log"), true);
    const plain = await openForAppend(path.join(dir, "b.log"), false);
    try {
      expect(durable.syncedWrites).toBe(true);
      expect(plain.syncedWrites).toBe(false);
      expect(flagsOfOpen(path.join(dir, "a.log")).map(dsync)).toEqual([true]);
      expect(flagsOfOpen(path.join(dir, "b.log")).map(dsync)).toEqual([false]);
    } finally {
      await durable.handle.close();
      await plain.handle.close();
    }
  });

  it("openForAppend leaves O_DSYNC off on macOS, where only F_FULLFSYNC reaches the disk", async () => {
    // libuv's fdatasync on macOS is fcntl(F_FULLFSYNC), which flushes the drive's cache; a write
    // to a file opened O_DSYNC does not, so there the writer must keep syncing itself.
    mkdirSync(dir, { recursive: true });
    const mac = await openForAppend(path.join(dir, "mac.log"), true, "darwin");
    try {
      expect(mac.syncedWrites).toBe(false);
      expect(flagsOfOpen(path.join(dir, "mac.log")).map(dsync)).toEqual([false]);
    } finally {
      await mac.handle.close();
    }
  });

  it("the log writes its new file and the file it continues O_DSYNC, unless told not to sync", async () => {
    const logFile = (): string => {
      const name = readdirSync(dir).find((file) => file.endsWith(".jsonl"));
      if (name === undefined) throw new Error("no log file");
      return path.join(dir, name);
    };
    const created = await AuditLog.open({ dir });
    await created.append(callInput(1));
    expect(flagsOfOpen(logFile()).map(dsync)).toEqual([true]);
    await created.close();

    const continued = await AuditLog.open({ dir });
    expect(flagsOfOpen(logFile()).map(dsync)).toEqual([true]);
    await continued.append(callInput(1));
    await continued.close();

    const unsynced = await AuditLog.open({ dir, fsync: false });
    expect(flagsOfOpen(logFile()).map(dsync)).toEqual([false]);
    await unsynced.close();
  });
});
