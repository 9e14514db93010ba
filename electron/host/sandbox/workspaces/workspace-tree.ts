// Walking a workspace's folder without following anything: what a run left in its slot is the
// sandbox's, so only plain files and folders are read (lstat, never stat), symlinks and other
// special files are left out, and the walk stops at a bounded number of entries. Names are read
// as bytes: the sandbox can name a file in bytes that are not UTF-8, and such a name read as a
// string names no file at all (so whatever is under it would go unseen, or fail the walk).
import { constants, lstatSync, opendirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { chmod, copyFile, lstat, open, opendir, readdir, rename, rm } from "node:fs/promises";
import { setImmediate as nextTurn } from "node:timers/promises";
import path from "node:path";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { isErrno } from "../../util/errno.js";
import { shutOut } from "./slot-opener.js";

/** One plain file or folder of a tree, by its path relative to the tree's root (`/`-separated). */
export interface TreeEntry {
  rel: string;
  kind: "file" | "dir";
  bytes: number;
  /** The inode, as `dev:ino`: a file linked in from the kept version has the same one. */
  inode: string;
  mtimeMs: number;
}

export interface Tree {
  entries: TreeEntry[];
  /** Files and folders together. */
  count: number;
  bytes: number;
  /** Symlinks, sockets, devices and pipes: never kept. */
  leftOut: number;
}

/** `name` as text, or null when its bytes are not UTF-8 (no path string can name it). */
function textName(name: Buffer): string | null {
  const text = name.toString("utf8");
  return Buffer.from(text, "utf8").equals(name) ? text : null;
}

/**
 * How many file system calls a walk on the run's way makes in a row before it lets the host's
 * other work run. Each is a metadata call on this computer's disk (microseconds), made
 * directly: through Node's thread pool each costs a round trip several times longer, and a
 * run's answer waits for its walks. A big tree still never holds the host up for long.
 */
export const WALK_CALLS_IN_A_ROW = 256;

/** Counts a walk's direct calls, and lets the event loop run every WALK_CALLS_IN_A_ROW. */
export function walkPace(): () => Promise<void> {
  let calls = 0;
  return async () => {
    if (++calls % WALK_CALLS_IN_A_ROW === 0) await nextTurn();
  };
}

/**
 * The names in `dir`, as bytes, read a few at a time: throws TreeTooLarge once there are more
 * than `room`, the entries left of `maxEntries` (a folder of millions of entries is never held in memory whole).
 */
async function readNames(
  dir: string,
  room: number,
  maxEntries: number,
  pace: () => Promise<void>,
): Promise<Buffer[]> {
  const names: Buffer[] = [];
  // Node reads names as bytes with "buffer" here too; its types only name string encodings.
  const handle = opendirSync(dir, { encoding: "buffer" as BufferEncoding });
  try {
    for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
      names.push(entry.name as unknown as Buffer);
      if (names.length > room) throw new TreeTooLarge(`more than ${maxEntries} files and folders`);
      await pace();
    }
  } finally {
    try {
      handle.closeSync();
    } catch {
      // Closed already, or gone: nothing is left open either way.
    }
  }
  return names;
}

/** A tree holds more entries, or a longer path, than it may: the message says which. */
export class TreeTooLarge extends Error {
  override name = "TreeTooLarge";
}

/**
 * Every plain file and folder under `root` (the root itself not included), parents before their
 * children; one whose name is not UTF-8 is left out, with all under it. Throws TreeTooLarge
 * past `maxEntries`, or at a path inside it longer than `maxPathChars` (the sandbox can make a
 * tree deeper than any path on the host can name, with relative paths).
 */
export async function scanTree(
  root: string,
  maxEntries: number,
  maxPathChars: number = WORKSPACE_LIMITS.pathMaxChars,
): Promise<Tree> {
  const tree: Tree = { entries: [], count: 0, bytes: 0, leftOut: 0 };
  const pace = walkPace();
  const stack = [""];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const raw = await readNames(path.join(root, rel), maxEntries - tree.count, maxEntries, pace);
    const names = raw.map(textName).filter((name) => name !== null);
    tree.leftOut += raw.length - names.length;
    const rels = names.sort().map((name) => (rel === "" ? name : `${rel}/${name}`));
    if (rels.some((childRel) => childRel.length > maxPathChars)) {
      throw new TreeTooLarge(`a path longer than ${maxPathChars} characters`);
    }
    for (const childRel of rels) {
      await pace();
      const info = lstatSync(path.join(root, childRel));
      const kind = info.isFile() ? "file" : info.isDirectory() ? "dir" : null;
      if (kind === null) {
        tree.leftOut++;
        continue;
      }
      if (++tree.count > maxEntries) {
        throw new TreeTooLarge(`more than ${maxEntries} files and folders`);
      }
      const bytes = kind === "file" ? info.size : 0;
      tree.bytes += bytes;
      tree.entries.push({
        rel: childRel,
        kind,
        bytes,
        inode: `${info.dev}:${info.ino}`,
        mtimeMs: info.mtimeMs,
      });
      if (kind === "dir") stack.push(childRel);
    }
  }
  return tree;
}

/** The unit of `stat`'s `blocks`. */
const BLOCK_BYTES = 512;

/**
 * What a measure of a slot found past its limits, if anything; "unreadable": a folder the host
 * is shut out of (its permissions) and could not open (slot-opener.ts), so it cannot be measured.
 */
export type SlotOver = "bytes" | "path" | "entries" | "unreadable";

/**
 * The bytes of the plain files under `root`, stopping early once past `limits.bytes` (the size
 * watch during a run needs only to know that). A file counts its size and any disk space
 * allocated past its end (fallocate with FALLOC_FL_KEEP_SIZE takes the disk while the size
 * says 0); the last block's rounding is not counted, so a file counts what the keep step
 * counts. It stops too once the tree holds more than `limits.entries` entries of any kind (each
 * one an inode of the host's disk), or a folder whose path inside `root` is longer than
 * `limits.pathBytes` (what is deeper cannot be measured by path). Folders are read a few
 * entries at a time, so a huge one costs no memory. Entries that go while it walks are skipped;
 * `shut` says a folder could not be read or searched for its permissions (what is in it went
 * uncounted).
 */
export async function treeBytes(
  root: string,
  limits: { bytes: number; entries: number; pathBytes: number },
): Promise<{ bytes: number; over: SlotOver | null; shut: boolean }> {
  let bytes = 0;
  let entries = 0;
  let shut = false;
  const separator = Buffer.from(path.sep);
  const top = Buffer.from(root);
  const stack = [top];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    if (dir.length - top.length > limits.pathBytes) return { bytes, over: "path", shut };
    let handle;
    try {
      // Node reads names as bytes with "buffer" here too; its types only name string encodings.
      handle = await opendir(dir, { encoding: "buffer" as BufferEncoding });
    } catch (error) {
      if (shutOut(error)) shut = true;
      continue;
    }
    try {
      for await (const entry of handle) {
        if (++entries > limits.entries) return { bytes, over: "entries", shut };
        const name = entry.name as unknown as Buffer;
        const full = Buffer.concat([dir, separator, name]);
        if (entry.isDirectory()) stack.push(full);
        else if (entry.isFile()) {
          const info = await lstat(full).catch((error: unknown) => {
            // A folder the host may list but not search (read without execute): its files
            // cannot be measured until it is opened, like a folder that cannot be read.
            if (shutOut(error)) shut = true;
            return null;
          });
          if (info === null) continue;
          const block = info.blksize > 0 ? info.blksize : BLOCK_BYTES;
          const rounded = Math.ceil(info.size / block) * block;
          bytes += info.size + Math.max(0, info.blocks * BLOCK_BYTES - rounded);
          if (bytes > limits.bytes) return { bytes, over: "bytes", shut };
        }
      }
    } catch {
      // The folder went while it was read: what is left of it is not there to count.
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
  return { bytes, over: null, shut };
}

/** Copies a plain file into a kept version: a file of the host's own, read-only, on disk. */
export async function copyKept(from: string, to: string): Promise<void> {
  await copyFile(from, to, constants.COPYFILE_EXCL);
  await chmod(to, 0o444);
  const handle = await open(to, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A folder whose path is longer than this is moved up before a tree is removed. */
const FLATTEN_PATH_BYTES = 2048;

/**
 * Removes `dir` and all in it, also a tree deeper than a path can name (the sandbox can make
 * one in its slot with relative paths, and a removal by path then fails with ENAMETOOLONG):
 * its deep folders are moved up to `dir` first, each while its path is still short.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
    return;
  } catch (error) {
    if (!isErrno(error, "ENAMETOOLONG")) throw error;
  }
  const separator = Buffer.from(path.sep);
  const stack = [Buffer.from(dir)];
  while (stack.length > 0) {
    const parent = stack.pop()!;
    const entries = await readdir(parent, { encoding: "buffer", withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      let child = Buffer.concat([parent, separator, entry.name]);
      if (child.length > FLATTEN_PATH_BYTES) {
        const moved = Buffer.from(path.join(dir, `.flat-${randomBytes(8).toString("hex")}`));
        await rename(child, moved);
        child = moved;
      }
      stack.push(child);
    }
  }
  await rm(dir, { recursive: true, force: true, maxRetries: 2 });
}
