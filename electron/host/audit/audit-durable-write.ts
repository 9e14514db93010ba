// Writes that must survive a crash: every byte written, the file synced, and a new name in a
// directory synced too.
import { constants as fsConstants } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { isErrno } from "../util/errno.js";

/** A file opened for appending, and whether each write to it is already durable. */
export interface AppendFile {
  handle: FileHandle;
  /**
   * True when the file was opened with O_DSYNC: a write returns only once its data is on disk,
   * as a write followed by fdatasync would, so the writer need not sync it again.
   */
  syncedWrites: boolean;
}

/**
 * Opens `file` for appending (created 0600 if missing). With `durable`, on Linux, the file is
 * opened O_DSYNC: each write is then one system call, one trip through libuv's thread pool and
 * back to the event loop, where a write followed by fdatasync took two
 * (bench/audit-append-one.ts). Only on Linux is that write exactly as durable as the write and
 * fdatasync it replaces: on macOS libuv's fdatasync is fcntl(F_FULLFSYNC), which also flushes
 * the drive's cache, and an O_DSYNC write does not; Windows has no O_DSYNC. There, and without
 * `durable`, the file is opened plainly and the writer syncs it itself.
 */
export async function openForAppend(
  file: string,
  durable: boolean,
  platform: NodeJS.Platform = process.platform,
): Promise<AppendFile> {
  const dsync =
    durable && platform === "linux" ? (fsConstants.O_DSYNC as number | undefined) : undefined;
  if (dsync === undefined || dsync === 0) {
    return { handle: await open(file, "a", 0o600), syncedWrites: false };
  }
  const flags = fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | dsync;
  return { handle: await open(file, flags, 0o600), syncedWrites: true };
}

export async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let done = 0;
  while (done < data.length) {
    // The file is open for appending, so each write lands at the end whatever the position.
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    done += bytesWritten;
  }
}

export async function writeSynced(file: string, data: Buffer): Promise<void> {
  const handle = await open(file, "w", 0o600);
  try {
    await writeAll(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for syncing; its directory entries need no such step.
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
}
