// One writer at a time for a pin file. The host (app or serve) and `codemode servers accept|reject`
// each read the file, change it and write it back; without a lock, the later writer would put back
// what it read before the other's change (a CLI accept lost under a host's save, or the reverse).
// The lock is `FILE.lock`, holding `PID TOKEN TIME PLACE`, made whole: written to a file of its own
// first and then hard-linked to its name (the link fails if the name is taken), so no one ever
// finds it empty or half-written while its taker lives (a taker whose event loop stalled between
// creating and writing it lost it to the damaged-lock rule below). Where the file system has no
// hard links, it is made with O_EXCL and then written. Its fields are the holder's pid, a random
// token, the time it was taken and a hash of where that pid means something (host, boot, pid
// namespace). It is taken over (a crash between taking and releasing it) when:
// - it is older than PIN_LOCK_STALE_MS, whatever else it says;
// - it is empty or unreadable and its file is older than PIN_LOCK_DAMAGED_GRACE_MS: its
//   taker died between creating and writing it (only where there are no hard links), or an
//   older version's did;
// - it was taken in our place: when its pid is dead, or is our own pid with a token none of
//   our jobs holds (its taker is gone, our pid reused: a restart in the same namespace);
// - it was taken elsewhere (another pid namespace, as a container sharing the file, another
//   host or boot, or a lock of an older version): its pid cannot be looked up here, not even
//   when it equals ours (two containers' `serve` both run as pid 1), so only its age tells,
//   and past PIN_LOCK_ELSEWHERE_STALE_MS, shorter than a writer's wait, it is taken over:
//   a `serve` restarted in a new container after a crash mid-save gets through its first save.
import { randomBytes } from "node:crypto";
import { link, open, readdir, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { removeIfUnchanged } from "../../util/remove-if-unchanged.js";
import { currentProcessPlace, pidAlive } from "../../util/process-place.js";
import { sha256Hex } from "../../util/sha256-hex.js";

/**
 * A process changing the pin file (a host saving, `codemode servers accept|reject`) holds
 * `FILE.lock` meanwhile; another waits for it this long at most, then fails with an error
 * naming the lock.
 */
export const PIN_LOCK_WAIT_MS = 10_000;

/** How often a waiting process looks at the lock again. */
export const PIN_LOCK_RETRY_MS = 25;

/**
 * A lock older than this is taken over even when its pid looks alive (a reused pid after a
 * crash, another machine's pid on a shared disk). No holder keeps it nearly this long: it
 * reads, changes and writes one file.
 */
export const PIN_LOCK_STALE_MS = 60_000;

/**
 * A lock found empty or unreadable whose file is older than this is taken over: its taker
 * died between creating it and writing its content, which a live taker does at once.
 */
export const PIN_LOCK_DAMAGED_GRACE_MS = 2_000;

/**
 * A lock taken where its pid cannot be looked up (another pid namespace, host or boot, or a
 * lock of an older version) is taken over past this age: shorter than PIN_LOCK_WAIT_MS, so a
 * writer kept out by one a crash left gets through, and far longer than a holder keeps it.
 */
export const PIN_LOCK_ELSEWHERE_STALE_MS = 5_000;

export function pinLockPath(file: string): string {
  return `${file}.lock`;
}

/** Who takes a lock: its pid, and a hash of where the pid means something. */
export interface LockTaker {
  pid: number;
  place: string;
}

/**
 * The place a taker's pid means something in: a hash of host, boot and pid namespace. On Linux
 * a pid namespace that cannot be read (a restricted /proc) leaves two containers with the same
 * hostname in one place, each then taking the other's live lock (same pid 1, unknown token):
 * such a process gets a place of its own, so its locks are judged by age alone. Elsewhere
 * (macOS, Windows) there is one pid namespace per boot, and nothing to read.
 */
export function takerPlace(
  where: { host: string; boot: string; pidns: string },
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === "linux" && where.pidns === "") return randomBytes(8).toString("hex");
  return sha256Hex(`${where.host}\n${where.boot}\n${where.pidns}`).slice(0, 16);
}

let ownPlace: string | undefined;

/** This process as a lock taker. */
export function currentTaker(): LockTaker {
  const where = currentProcessPlace();
  ownPlace ??= takerPlace(where);
  return { pid: where.pid, place: ownPlace };
}

export interface PinLockOptions {
  waitMs?: number;
  staleMs?: number;
  isAlive?: (pid: number) => boolean;
  /** Tests take the lock as another process would. */
  taker?: LockTaker;
  /** Tests make a removal fail, as one whose gate stays taken does after a long wait. */
  removeLock?: (lock: string, expected: string) => Promise<void>;
}

/** The tokens of the locks this process holds now: several of its jobs may wait in turn. */
const heldHere = new Set<string>();

/** The pin file stays locked: another process holds it past the wait. */
export class PinFileLocked extends Error {
  override name = "PinFileLocked";
}

/** Runs `job` holding the pin file's lock; the lock goes once the job settles. */
export async function withPinLock<T>(
  file: string,
  job: () => Promise<T>,
  options: PinLockOptions = {},
): Promise<T> {
  const release = await takePinLock(file, options);
  try {
    return await job();
  } finally {
    // A lock that could not be removed (its removal gate stayed taken) must not turn a job
    // that is done, its file written, into a failure: it is left to go stale, and this
    // process's own jobs take it over at once (our pid, a token none of them holds).
    await release().catch(() => undefined);
  }
}

async function takePinLock(file: string, options: PinLockOptions): Promise<() => Promise<void>> {
  const lock = pinLockPath(file);
  const waitMs = options.waitMs ?? PIN_LOCK_WAIT_MS;
  const staleMs = options.staleMs ?? PIN_LOCK_STALE_MS;
  const judge: Judge = {
    staleMs,
    isAlive: options.isAlive ?? pidAlive,
    self: options.taker ?? currentTaker(),
  };
  const removeLock = options.removeLock ?? removeIfUnchanged;
  const token = randomBytes(8).toString("hex");
  const content = `${judge.self.pid} ${token} ${Date.now()} ${judge.self.place}\n`;
  const deadline = Date.now() + waitMs;
  let holder = "";
  // Ours from before the lock exists: another job of this process that reads it in the moment
  // after it is made must not take it for a dead earlier process's (same pid, unknown token).
  heldHere.add(token);
  try {
    return await takeOrWait();
  } catch (error) {
    heldHere.delete(token);
    throw error;
  }

  async function takeOrWait(): Promise<() => Promise<void>> {
    for (;;) {
      const made = await createExclusive(lock, content, token);
      // Nothing can be created beside the pin file (a read-only config directory, say): then
      // this process cannot write the pin file either (an atomic write makes a file there), so
      // the job can only read it, and there is no writer of ours to keep out. Run it unlocked,
      // as before the lock: `serve --config` on a read-only file serves, its saves reported.
      if (made === "cannot") {
        heldHere.delete(token);
        return () => Promise.resolve();
      }
      if (made === "made") {
        await clearStrayWholes(lock);
        return async () => {
          // Only our own lock goes: one taken over as stale is someone else's now.
          try {
            const now = await readFile(lock, "utf8").catch(() => undefined);
            if (now === content) await removeLock(lock, content);
          } finally {
            heldHere.delete(token);
          }
        };
      }
      const found = await readFile(lock, "utf8").catch(() => undefined);
      if (found !== undefined) {
        holder = found;
        const madeAt = await stat(lock).then(
          (s) => s.mtimeMs,
          () => Date.now(),
        );
        if (isStale(found, madeAt, judge)) {
          await removeLock(lock, found);
          continue;
        }
      }
      if (Date.now() >= deadline) {
        const pid = holder.split(" ")[0] ?? "?";
        throw new PinFileLocked(
          `the pin file ${file} is locked by process ${pid}; if no Code Mode runs, delete ${lock}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, PIN_LOCK_RETRY_MS));
    }
  }
}

interface Judge {
  staleMs: number;
  isAlive: (pid: number) => boolean;
  self: LockTaker;
}

/** Whether a lock found as `content`, its file last written at `madeAt`, is no one's hold. */
function isStale(content: string, madeAt: number, judge: Judge): boolean {
  const [pidText, token, atText, place] = content.trim().split(" ");
  const pid = Number(pidText);
  const at = Number(atText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || token === undefined || !Number.isFinite(at)) {
    return Date.now() - madeAt > PIN_LOCK_DAMAGED_GRACE_MS;
  }
  const age = Date.now() - at;
  if (age > judge.staleMs) return true;
  if (heldHere.has(token)) return false;
  if (place === judge.self.place) return pid === judge.self.pid || !judge.isAlive(pid);
  return age > Math.min(judge.staleMs, PIN_LOCK_ELSEWHERE_STALE_MS);
}

/** Errors of a directory in which this process may create nothing. */
const CANNOT_CREATE = new Set(["EROFS", "EACCES", "EPERM"]);

/** Errors of link() on a file system without hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/**
 * Makes `file` holding `content`, whole, unless it exists: the content goes into a file of its
 * own, which is then hard-linked to `file` (link() fails with EEXIST when it exists).
 */
async function createExclusive(
  file: string,
  content: string,
  token: string,
): Promise<"made" | "taken" | "cannot"> {
  const whole = `${file}.${token}`;
  try {
    await writeNew(whole, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && CANNOT_CREATE.has(code)) return "cannot";
    throw error;
  }
  try {
    await link(whole, file);
    return "made";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return "taken";
    // Our whole lock is gone: we stalled past PIN_LOCK_STALE_MS between writing and
    // linking it, and a holder cleared it as stray (clearStrayWholes). Try again with a new one.
    if (code === "ENOENT") return "taken";
    if (code === undefined || !NO_HARD_LINKS.has(code)) throw error;
  } finally {
    await unlink(whole).catch(() => undefined);
  }
  return createThenWrite(file, content);
}

/** A whole lock's name beside the lock: `FILE.lock.` and its taker's 16-hex token. */
function wholeToken(lockName: string, name: string): string | undefined {
  if (!name.startsWith(`${lockName}.`)) return undefined;
  const token = name.slice(lockName.length + 1);
  return token.length === 16 && /^[0-9a-f]+$/.test(token) ? token : undefined;
}

/**
 * Removes whole locks left beside the lock by takers that died between writing one and
 * unlinking it (a taker unlinks its own within milliseconds, taken or not): without this they
 * would stay in the config folder for good. Only ones older than PIN_LOCK_STALE_MS go,
 * never one of this process's jobs; called while holding the lock, so it runs once per save.
 */
async function clearStrayWholes(lock: string): Promise<void> {
  const dir = path.dirname(lock);
  const lockName = path.basename(lock);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const token = wholeToken(lockName, name);
    if (token === undefined || heldHere.has(token)) continue;
    const file = path.join(dir, name);
    const madeAt = await stat(file).then(
      (s) => s.mtimeMs,
      () => Date.now(),
    );
    if (Date.now() - madeAt > PIN_LOCK_STALE_MS) await unlink(file).catch(() => undefined);
  }
}

async function writeNew(file: string, content: string): Promise<void> {
  const handle = await open(file, "wx", 0o600);
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/** Without hard links: O_EXCL, then the content (a moment in which it is empty). */
async function createThenWrite(
  file: string,
  content: string,
): Promise<"made" | "taken" | "cannot"> {
  let handle;
  try {
    handle = await open(file, "wx", 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return "taken";
    if (code !== undefined && CANNOT_CREATE.has(code)) return "cannot";
    throw error;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return "made";
}
