// Writes that must survive a crash: every byte written, the file synced, and a new name in a
// directory synced too.
import { open, unlink, type FileHandle } from "node:fs/promises";
import { isErrno } from "./audit-files.js";

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
