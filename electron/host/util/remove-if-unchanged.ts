// Removing a lock file only if it is still the one judged stale (or still our own), without
// a race. Two processes may judge the same lock stale at once; the slower one must not remove
// the lock the faster one, or a third process, took meanwhile. No file system call removes a
// file only if it still holds X. Moving it aside to look at it (the earlier scheme) leaves
// the name free while it is aside: a third process takes the lock then, moving it back fails,
// the moved lock is lost, and two processes believe they hold it.
//
// So removers take turns through a gate, and read and remove the lock inside it. Nothing
// else removes a lock (a holder's release comes here too) and nothing replaces one (takers
// create with O_EXCL), so what a remover reads inside the gate is what it removes.
//
// The gate is `LOCK.gate`: a directory holding one file named for its holder's turn. It is
// made whole beside it and renamed into place, which fails while another gate (a directory
// with a file in it) stands there. Leaving removes the turn's own file, then the directory
// only if empty, so a newer gate always survives. A gate older than
// LOCK_GATE_STALE_MS (its remover died, a turn takes milliseconds) is
// cleared the same way; only a remover stalled that long inside the gate could still race.
//
// A remover that dies while waiting to enter leaves its unrenamed gate (`LOCK.gate.ID`)
// beside the lock, where no one enters it. Each remover, once inside the gate, clears such
// folders whose turn is stamped older than that stale time (a waiter renames its turn in it,
// stamped anew, at every attempt). It first renames one away to a name of its own, so a waiter stalled that long
// finds its folder gone and fails, instead of entering with a folder emptied under it.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { LOCAL_ACCESS_MODES } from "../../../shared/limits.js";

/**
 * Removing a lock (a stale one, or our own on release) goes through a gate, one remover at a
 * time (remove-if-unchanged.ts). A turn in it takes milliseconds; a gate older than this was
 * left by a remover that died, and is cleared.
 */
export const LOCK_GATE_STALE_MS = 5_000;

/** Pause between attempts to enter a gate another remover holds. */
export const LOCK_GATE_RETRY_MS = 10;

/** Points inside a removal where a test can make other processes' steps happen. */
export interface RemovalHooks {
  /** The lock was read inside the gate, nothing removed yet. */
  afterRead?: () => Promise<void>;
}

export function removalGatePath(file: string): string {
  return `${file}.gate`;
}

/** Removes `file` if it holds exactly `expected`; a changed or missing file stays as it is. */
export async function removeIfUnchanged(
  file: string,
  expected: string,
  hooks: RemovalHooks = {},
): Promise<void> {
  const gate = removalGatePath(file);
  const leave = await enterGate(gate);
  try {
    await clearStrayGates(gate);
    const found = await readFile(file, "utf8").catch(() => undefined);
    await hooks.afterRead?.();
    if (found === expected) await rm(file, { force: true });
  } finally {
    await leave();
  }
}

/** Renaming onto a gate that stands fails with one of these, by platform. */
const GATE_STANDS = new Set(["ENOTEMPTY", "EEXIST", "EPERM", "EACCES", "EISDIR", "ENOTDIR"]);

/** Random bytes of the id naming a remover's turn and its unrenamed gate. */
const GATE_ID_BYTES = 6;

function newGateId(): string {
  return randomBytes(GATE_ID_BYTES).toString("hex");
}

async function enterGate(gate: string): Promise<() => Promise<void>> {
  const id = newGateId();
  let turn = `${Date.now()}-${id}`;
  const made = `${gate}.${id}`;
  await mkdir(made, { mode: LOCAL_ACCESS_MODES.dataDir });
  try {
    await writeFile(path.join(made, turn), "", { mode: LOCAL_ACCESS_MODES.lockFile });
    // A gate outlives its stale time only while it is being cleared; twice that is a bound.
    const deadline = Date.now() + 2 * LOCK_GATE_STALE_MS;
    for (;;) {
      // The turn's age is counted from this attempt, not from when we began to wait: a turn
      // stamped before a long wait would pass for a dead remover's soon after it got in.
      const now = `${Date.now()}-${id}`;
      if (now !== turn) {
        await rename(path.join(made, turn), path.join(made, now));
        turn = now;
      }
      try {
        await rename(made, gate);
        const entered = turn;
        return () => leaveGate(gate, entered);
      } catch (error) {
        if (!GATE_STANDS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
      }
      await clearStaleGate(gate);
      if (Date.now() >= deadline) throw new Error(`could not enter ${gate}: it stays taken`);
      await new Promise((resolve) => setTimeout(resolve, LOCK_GATE_RETRY_MS));
    }
  } catch (error) {
    await rm(made, { recursive: true, force: true });
    throw error;
  }
}

/** Our turn's file goes, then the directory if nothing else is in it (rmdir refuses then). */
async function leaveGate(gate: string, turn: string): Promise<void> {
  await rm(path.join(gate, turn), { force: true });
  await rmdir(gate).catch(() => undefined);
}

/** Removes the turns of removers that died in the gate, then the gate if it is empty. */
async function clearStaleGate(gate: string): Promise<void> {
  const turns = await readdir(gate).catch(() => undefined);
  if (turns === undefined) return;
  for (const turn of turns) {
    const at = Number(turn.split("-")[0]);
    if (isStale(at)) {
      await rm(path.join(gate, turn), { force: true }).catch(() => undefined);
    }
  }
  // Only an empty directory goes: a gate renamed in meanwhile, with its turn, stays.
  await rmdir(gate).catch(() => undefined);
}

/** Whether a gate or turn last touched at `at` (ms since the epoch) was left by a dead remover. */
function isStale(at: number): boolean {
  return !(Date.now() - at <= LOCK_GATE_STALE_MS);
}

/** Whether `name` is that of an unrenamed gate beside `gate`: `GATE.` and a gate id. */
function isStrayGateName(gate: string, name: string): boolean {
  const prefix = `${path.basename(gate)}.`;
  if (!name.startsWith(prefix)) return false;
  const id = name.slice(prefix.length);
  const hex = "0123456789abcdef";
  return id.length === 2 * GATE_ID_BYTES && [...id].every((c) => hex.includes(c));
}

/**
 * Whether an unrenamed gate was left by a remover that died waiting. Judged by the stamp of the
 * turn in it, which its waiter renews at every attempt with its own clock, as the gate's own
 * turns are judged: a folder's mtime comes from the file server's clock on a network share
 * (and is cached there for a while), so a live waiter's folder could look old by it. Only a
 * folder with no turn (its remover died between making it and writing the turn) goes by mtime.
 */
async function strayIsStale(stray: string): Promise<boolean> {
  const turns = await readdir(stray).catch(() => undefined);
  if (turns === undefined) return false;
  if (turns.length > 0) return turns.every((turn) => isStale(Number(turn.split("-")[0])));
  const info = await stat(stray).catch(() => undefined);
  return info !== undefined && isStale(info.mtimeMs);
}

/** Clears the unrenamed gates of removers that died waiting; called inside the gate. */
async function clearStrayGates(gate: string): Promise<void> {
  const dir = path.dirname(gate);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!isStrayGateName(gate, name)) continue;
    const stray = path.join(dir, name);
    if (!(await strayIsStale(stray))) continue;
    // Renamed away whole first: its waiter, if alive after all, cannot enter with it now.
    const doomed = `${gate}.${newGateId()}`;
    const moved = await rename(stray, doomed).then(
      () => true,
      () => false,
    );
    if (moved) await rm(doomed, { recursive: true, force: true }).catch(() => undefined);
  }
}
