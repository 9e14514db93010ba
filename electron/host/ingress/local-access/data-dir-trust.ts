import { lstat, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { octal } from "./socket-path.js";

// What Code Mode reads from its data directory decides what it runs: servers.json names
// commands, settings.json loosens limits, the token admits clients. So the directory and
// those files must be the user's own, as OpenSSH requires of ~/.ssh: owned by the user, not
// writable by group or others, and reached through directories no one else can rewrite.

/** The data directory, or something in it or above it, is not safely the user's own. */
export class DataDirTrustError extends Error {
  override name = "DataDirTrustError";
  constructor(
    message: string,
    /** The path that failed the check. */
    readonly path: string,
  ) {
    super(message);
  }
}

/** The facts the check depends on, passed in so it can be tested. */
export interface TrustFacts {
  platform: NodeJS.Platform;
  /** Undefined where there are no uids (Windows). */
  uid: number | undefined;
}

export function currentTrustFacts(): TrustFacts {
  return { platform: process.platform, uid: process.getuid?.() };
}

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;
const ROOT_UID = 0;

/** Quotes a path for a POSIX shell, so the fix we print can be pasted as it is. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function describe(file: string, uid: number, mode: number): string {
  return `${file} (owner uid ${uid}, mode ${octal(mode)})`;
}

function refuse(
  file: string,
  what: string,
  fileUid: number,
  mode: number,
  why: string,
  fix: string,
): DataDirTrustError {
  return new DataDirTrustError(
    `Code Mode will not use its data directory: ${what} ${describe(file, fileUid, mode)} ${why}, ` +
      `so another user could plant a config or token there that Code Mode would act on as you. ` +
      `Fix: ${fix}`,
    file,
  );
}

/** The user must own it and nobody else may write it. */
function checkOwn(file: string, what: string, fileUid: number, mode: number, uid: number): void {
  if (fileUid !== uid) {
    throw refuse(
      file,
      what,
      fileUid,
      mode,
      `belongs to another user (you are uid ${uid})`,
      `chown ${uid} ${shellQuote(file)} (as root), or set CODEMODE_HOME to a directory of your own.`,
    );
  }
  if ((mode & GROUP_OR_OTHER_WRITE) !== 0) {
    throw refuse(
      file,
      what,
      fileUid,
      mode,
      "can be written by other users",
      `chmod go-w ${shellQuote(file)}`,
    );
  }
}

/**
 * Each directory above the data directory must belong to the user or root, and no one else
 * may write it unless it is sticky (like /tmp): in a sticky directory only an entry's owner
 * can rename or remove it, so our directory cannot be swapped for someone else's.
 */
async function checkParents(dir: string, uid: number): Promise<void> {
  let current = path.dirname(dir);
  for (;;) {
    const info = await stat(current);
    if (info.uid !== uid && info.uid !== ROOT_UID) {
      throw refuse(
        current,
        "the directory above it",
        info.uid,
        info.mode,
        `belongs to another user (you are uid ${uid}), who could replace the data directory`,
        `move the data directory somewhere of your own (set CODEMODE_HOME).`,
      );
    }
    if ((info.mode & GROUP_OR_OTHER_WRITE) !== 0 && (info.mode & STICKY) === 0) {
      throw refuse(
        current,
        "the directory above it",
        info.uid,
        info.mode,
        "can be written by other users, who could replace the data directory",
        `chmod go-w ${shellQuote(current)} (or set CODEMODE_HOME to a directory of your own).`,
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/** `*<suffix>` stands for every name in `dir` that ends with `<suffix>`. */
async function expandEntries(dir: string, entries: readonly string[]): Promise<string[]> {
  const suffixes = entries.filter((e) => e.startsWith("*")).map((e) => e.slice(1));
  const names = entries.filter((e) => !e.startsWith("*"));
  if (suffixes.length === 0) return names;
  for (const name of await readdir(dir)) {
    if (suffixes.some((suffix) => name.endsWith(suffix))) names.push(name);
  }
  return names;
}

/**
 * Refuses a data directory that is not safely the user's own: the directory itself, the
 * directories above it, and each of `entries` in it that exists (files the host reads, or
 * directories it keeps records in; `*<suffix>` names every entry ending so). Missing entries are fine: the host makes them itself.
 * Windows has ACLs instead of modes, and the per-user profile folder; it is not checked.
 */
export async function checkDataDirTrust(
  dataDir: string,
  entries: readonly string[],
  facts: TrustFacts = currentTrustFacts(),
): Promise<void> {
  const uid = facts.uid;
  if (facts.platform === "win32" || uid === undefined) return;
  // The real path: a symlink on the way is judged by where it leads.
  const dir = await realpath(dataDir);
  const info = await stat(dir);
  if (!info.isDirectory()) {
    throw new DataDirTrustError(`The data directory ${dir} is not a directory.`, dir);
  }
  checkOwn(dir, "the data directory", info.uid, info.mode, uid);
  await checkParents(dir, uid);
  for (const name of await expandEntries(dir, entries)) {
    const file = path.join(dir, name);
    let entry;
    try {
      entry = await lstat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (entry.isSymbolicLink()) {
      throw new DataDirTrustError(
        `Code Mode will not use its data directory: ${describe(file, entry.uid, entry.mode)} is a symbolic link, ` +
          `and Code Mode reads only its own files there. Fix: replace it with the file it points to.`,
        file,
      );
    }
    checkOwn(file, entry.isDirectory() ? "its folder" : "its file", entry.uid, entry.mode, uid);
  }
}
