// One writer at a time for a pin file. The host (app or serve) and `codemode servers
// accept|reject` each read the file, change it and write it back; without a lock, the later
// writer would put back what it read before the other's change (a CLI accept lost under a
// host's save, or the reverse). The lock is `FILE.lock`, made with O_EXCL and holding the
// holder's pid, a random token and the time; a lock whose pid is dead, or that is older than
// PIN_LIMITS.lockStaleMs, is taken over (a crash between taking and releasing it).
import { randomBytes } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import { PIN_LIMITS } from "../../../shared/limits.js";
import { pidAlive } from "../local-access/instance-lock.js";
import { removeIfUnchanged } from "../local-access/remove-if-unchanged.js";

export function pinLockPath(file: string): string {
  return `${file}.lock`;
}

export interface PinLockOptions {
  waitMs?: number;
  staleMs?: number;
  isAlive?: (pid: number) => boolean;
}

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
    await release();
  }
}

async function takePinLock(file: string, options: PinLockOptions): Promise<() => Promise<void>> {
  const lock = pinLockPath(file);
  const waitMs = options.waitMs ?? PIN_LIMITS.lockWaitMs;
  const staleMs = options.staleMs ?? PIN_LIMITS.lockStaleMs;
  const isAlive = options.isAlive ?? pidAlive;
  const content = `${process.pid} ${randomBytes(8).toString("hex")} ${Date.now()}\n`;
  const deadline = Date.now() + waitMs;
  let holder = "";
  for (;;) {
    const made = await createExclusive(lock, content);
    // Nothing can be created beside the pin file (a read-only config directory, say): then
    // this process cannot write the pin file either (an atomic write makes a file there), so
    // the job can only read it, and there is no writer of ours to keep out. Run it unlocked,
    // as before the lock: `serve --config` on a read-only file serves, its saves reported.
    if (made === "cannot") return () => Promise.resolve();
    if (made === "made") {
      return async () => {
        // Only our own lock goes: one taken over as stale is someone else's now.
        const now = await readFile(lock, "utf8").catch(() => undefined);
        if (now === content) await removeIfUnchanged(lock, content);
      };
    }
    const found = await readFile(lock, "utf8").catch(() => undefined);
    if (found !== undefined) {
      holder = found;
      // Empty: its taker is between creating and writing it, or died there (then only its age
      // tells, from the file's own time).
      const stale =
        found === ""
          ? Date.now() -
              (await stat(lock).then(
                (s) => s.mtimeMs,
                () => Date.now(),
              )) >
            staleMs
          : isStale(found, staleMs, isAlive);
      if (stale) {
        await removeIfUnchanged(lock, found);
        continue;
      }
    }
    if (Date.now() >= deadline) {
      const pid = holder.split(" ")[0] ?? "?";
      throw new PinFileLocked(
        `the pin file ${file} is locked by process ${pid}; if no Code Mode runs, delete ${lock}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, PIN_LIMITS.lockRetryMs));
  }
}

/** A lock whose holder died, or that is too old to be anyone's honest hold (or unreadable). */
function isStale(content: string, staleMs: number, isAlive: (pid: number) => boolean): boolean {
  const [pidText, , atText] = content.trim().split(" ");
  const pid = Number(pidText);
  const at = Number(atText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !Number.isFinite(at)) return true;
  if (Date.now() - at > staleMs) return true;
  return !isAlive(pid);
}

/** Errors of a directory in which this process may create nothing. */
const CANNOT_CREATE = new Set(["EROFS", "EACCES", "EPERM"]);

async function createExclusive(
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
