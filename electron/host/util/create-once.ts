import { open, rm } from "node:fs/promises";
import { isErrno } from "./errno.js";

/**
 * Creates `file` holding `content` unless it exists (O_EXCL): true when this call made it,
 * false when it was there already. The content is synced before it returns. A write that fails
 * removes the file again: a file left empty would read as damaged at every later start.
 */
export async function createOnce(file: string, content: string, mode: number): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "wx", mode);
  } catch (error) {
    if (isErrno(error, "EEXIST")) return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    try {
      await handle.close();
    } finally {
      await rm(file, { force: true });
    }
    throw error;
  }
  await handle.close();
  return true;
}
