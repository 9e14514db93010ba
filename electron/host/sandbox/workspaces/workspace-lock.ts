// One holder of a workspace at a time: a run (from its fill to its keep) or an edit (the UI,
// the CLI). Within a process, holders wait their turn in order; across processes (the app, a
// `codemode serve`, the CLI on the same data directory) a lock file names the holder, and one
// whose process is gone is taken over. A run is answered before its keep: while the keep is
// under way a second file marks it, and readers (who take no lock) wait for it to go, so what
// they read is what the run's keep left.
import { renameSync, writeFileSync } from "node:fs";
import { readFile, rm, stat } from "node:fs/promises";
import { isErrno } from "../../util/errno.js";
import { removeIfUnchanged } from "../../util/remove-if-unchanged.js";
import { waitAtMost } from "../../util/wait-at-most.js";
import { pidAlive } from "../../util/process-place.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";

/** The lock file in a workspace's folder. */
export const LOCK_FILE = "lock";

/** The workspace is held by another process that is still alive. */
export class WorkspaceBusy extends RunNotStarted {
  override name = "WorkspaceBusy";
}

/** A lock file whose holder is alive is looked at again after this long... */
export const LOCK_RETRY_MS = 100;
/** ...for at most this long, then the waiter gives up with WorkspaceBusy. */
export const LOCK_WAIT_MS = 10_000;
/**
 * A lock file naming no holder is being written (its taker made it, and writes its pid next)
 * until it is this old; past that, its taker died in between.
 */
export const LOCK_UNNAMED_GRACE_MS = 2_000;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** In-process turns, by lock file path: each holder waits for the one before it. */
const turns = new Map<string, Promise<void>>();

/**
 * Takes the lock at `file` (in process order, then across processes); resolves to the
 * function that gives it back. Throws WorkspaceBusy when another live process keeps it past
 * LOCK_WAIT_MS.
 */
export async function takeWorkspaceLock(
  file: string,
  what: string,
  isAlive: (pid: number) => boolean = pidAlive,
): Promise<() => Promise<void>> {
  const before = turns.get(file) ?? Promise.resolve();
  let done: () => void = () => undefined;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const chained = before.then(() => mine);
  turns.set(file, chained);
  const finish = (): void => {
    done();
    if (turns.get(file) === chained) turns.delete(file);
  };
  await before;
  try {
    await takeFile(file, what, isAlive);
  } catch (error) {
    finish();
    throw error;
  }
  return async () => {
    try {
      // Only while it names this process: a workspace removed while held took its lock file
      // along, and the lock there now is another process's, which made the workspace anew.
      // (No one else removes or rewrites a lock naming a live process.)
      const text = await readFile(file, "utf8").catch(() => null);
      if (text?.trim() === String(process.pid)) await rm(file, { force: true });
    } finally {
      finish();
    }
  };
}

/** The mark of a keep under way, beside the lock file. */
export const KEEPING_FILE = "keeping";

/** This process's keeps under way, by mark file: readers here wait on them directly. */
const keeps = new Map<string, Promise<void>>();

/**
 * Marks a keep under way at `file` (the holder of the workspace's lock does it); resolves to
 * the function that ends the mark.
 */
export async function markKeeping(file: string): Promise<() => Promise<void>> {
  let done: () => void = () => undefined;
  const kept = new Promise<void>((resolve) => (done = resolve));
  keeps.set(file, kept);
  const end = async (): Promise<void> => {
    try {
      await rm(file, { force: true });
    } finally {
      if (keeps.get(file) === kept) keeps.delete(file);
      done();
    }
  };
  try {
    // Written aside and renamed: a reader never finds it empty. Made directly: the run's answer
    // waits for it, and each call through the thread pool is a round trip.
    const aside = `${file}.${process.pid}`;
    writeFileSync(aside, String(process.pid), { mode: 0o600 });
    renameSync(aside, file);
  } catch (error) {
    await end();
    throw error;
  }
  return end;
}

/**
 * Waits while a keep is marked at `file`: one of this process, or of another process that is
 * still alive (a mark whose process is gone, or of this process but not in `keeps`, is left by
 * a crash). Throws WorkspaceBusy when a keep, here or in another process, lasts past
 * LOCK_WAIT_MS (a container the engine is slow to stop holds its keep back).
 */
export async function waitForKeep(
  file: string,
  what: string,
  isAlive: (pid: number) => boolean = pidAlive,
): Promise<void> {
  const mine = keeps.get(file);
  if (mine !== undefined && !(await waitAtMost(mine, LOCK_WAIT_MS))) {
    throw new WorkspaceBusy(
      `${what} is still being kept: the container of the run that used it has not stopped yet; try again in a moment`,
    );
  }
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const text = await readFile(file, "utf8").catch(() => null);
    if (text === null) return;
    const holder = Number(text.trim());
    const live =
      Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder);
    if (!live) return;
    if (Date.now() >= giveUpAt) {
      throw new WorkspaceBusy(
        `${what} is being kept by another Code Mode process (pid ${holder}); try again when it is done`,
      );
    }
    await delay(LOCK_RETRY_MS);
  }
}

async function takeFile(
  file: string,
  what: string,
  isAlive: (pid: number) => boolean,
): Promise<void> {
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      // Made directly, as the keep's mark is: a run waits for its lock.
      writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
      return;
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
    }
    const found = await lockHolder(file, isAlive);
    // Gone since: tried again at once (removing what is there now could remove the lock of
    // the taker that was quicker).
    if (found === "free" && Date.now() < giveUpAt) continue;
    if (typeof found === "object" && "stale" in found) {
      // Removed only if it still holds what was judged stale: two takers may judge it so at
      // once, and the slower must not remove the lock the quicker took meanwhile.
      await removeIfUnchanged(file, found.stale);
      if (Date.now() < giveUpAt) continue;
    }
    if (Date.now() >= giveUpAt) {
      const by =
        typeof found === "object" && "pid" in found && found.pid !== null
          ? ` (pid ${found.pid})`
          : "";
      throw new WorkspaceBusy(
        `${what} is in use by another Code Mode process${by}; try again when it is done`,
      );
    }
    await delay(LOCK_RETRY_MS);
  }
}

/**
 * Who holds the lock at `file`: no one any more (the file went), no one alive (`stale`: what
 * the file holds), or a live holder, its pid when the file names it yet.
 */
async function lockHolder(
  file: string,
  isAlive: (pid: number) => boolean,
): Promise<"free" | { stale: string } | { pid: number | null }> {
  const text = await readFile(file, "utf8").catch((error: unknown) =>
    isErrno(error, "ENOENT") ? null : "",
  );
  if (text === null) return "free";
  const pid = Number(text.trim());
  if (Number.isSafeInteger(pid) && pid > 0) {
    // Ours is from before a crash of this process's earlier life under the same pid.
    return !isAlive(pid) || pid === process.pid ? { stale: text } : { pid };
  }
  // Naming no one: a live taker's, about to write its pid, unless it died in between.
  const info = await stat(file).catch(() => null);
  if (info === null) return "free";
  return Date.now() - info.mtimeMs > LOCK_UNNAMED_GRACE_MS ? { stale: text } : { pid: null };
}
