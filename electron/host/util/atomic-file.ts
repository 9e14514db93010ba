import { constants } from "node:fs";
import { copyFile, open, readdir, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";

/** The previous version of a file written by writeFileAtomic. */
export function backupPath(file: string): string {
  return `${file}.bak`;
}

/**
 * Replaces a file so that a crash at any moment leaves either the old or the new content,
 * never a mix: write a temporary file beside it, fsync, keep the old version as `.bak`,
 * rename over, fsync the directory.
 */
export async function writeFileAtomic(
  file: string,
  data: string,
  mode = 0o600,
  // A caller that keeps its own backup (the Claude Desktop writer) asks for no `.bak` too.
  options: { keepBak?: boolean } = {},
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(data, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (options.keepBak !== false) {
      await copyFile(file, backupPath(file)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error;
      });
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  // Directories cannot be opened for fsync on Windows; the rename is durable enough there.
  if (process.platform === "win32") return;
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export type LoadResult<T> =
  | { state: "missing" }
  | { state: "ok"; value: T }
  | { state: "invalid"; problem: string; keptAs: string };

/**
 * Reads a file the app wrote earlier. One that no longer parses or validates is copied
 * aside (never overwritten, never deleted) and reported, so the app can start with a clear
 * error instead of crashing or silently losing what the user had.
 */
export async function loadFile<T>(
  file: string,
  parse: (text: string) => { ok: true; value: T } | { ok: false; problem: string },
  now: () => Date = () => new Date(),
): Promise<LoadResult<T>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw error;
  }
  const parsed = parse(text);
  if (parsed.ok) return { state: "ok", value: parsed.value };
  // The same bad file found again at the next start is not copied again.
  const dir = path.dirname(file);
  const prefix = `${path.basename(file)}.invalid-`;
  for (const name of (await readdir(dir))
    .filter((n) => n.startsWith(prefix))
    .sort()
    .reverse()) {
    const kept = path.join(dir, name);
    if ((await readFile(kept, "utf8").catch(() => null)) === text) {
      return { state: "invalid", problem: parsed.problem, keptAs: kept };
    }
  }
  const stamp = now().toISOString().replace(/[:.]/g, "-");
  const keptAs = `${file}.invalid-${stamp}`;
  await copyFile(file, keptAs, constants.COPYFILE_EXCL);
  return { state: "invalid", problem: parsed.problem, keptAs };
}
