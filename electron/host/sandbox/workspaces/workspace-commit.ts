// Moving a workspace's files into a run's slot and back. Filling costs a link per file, not a
// copy of its bytes (a run that only reads a 200 MB workspace pays for what it reads): each
// kept file is hard-linked into the slot, read-only and owned by the host, so the sandbox's
// user can read it but never change the kept copy in place (runner.py copies a file before
// the code writes to it). Where the file system can clone (btrfs, XFS, APFS) a clone is used
// instead: a file of its own for the run at the same cost. Keeping costs a copy only of what
// the run added or changed: an unchanged file is linked into the new version from the old.
import { chmodSync, constants, linkSync, mkdirSync } from "node:fs";
import { chmod, copyFile, link, mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { copyKept, scanTree, walkPace, type Tree, type TreeEntry } from "./workspace-tree.js";

/** How many files a fill clones at once. */
export const FILL_AT_ONCE = 16;

/** How a slot is filled: hard links of the kept files, or clones of them. */
export type FillMode = "link" | "clone";

/** What a slot was filled with, to tell afterwards what the run changed. */
export interface Filled {
  mode: FillMode;
  /** Link mode: a kept file's inode, to the path it has in the kept version. */
  byInode: Map<string, string>;
  /** Clone mode: each file's size and time as cloned. */
  byRel: Map<string, { bytes: number; mtimeMs: number }>;
  /** The kept version's files. */
  files: Set<string>;
  dirs: Set<string>;
}

/** Whether `dir`'s file system clones files (copy-on-write); false when it cannot say. */
export async function canClone(dir: string): Promise<boolean> {
  const probe = path.join(dir, `.clone-probe-${process.pid}`);
  try {
    await writeFile(probe, "x");
    await copyFile(probe, `${probe}.c`, constants.COPYFILE_FICLONE_FORCE);
    return true;
  } catch {
    return false;
  } finally {
    await rm(probe, { force: true });
    await rm(`${probe}.c`, { force: true });
  }
}

/** Puts the kept version `from` (already scanned as `tree`) into the slot folder `into`. */
export async function fillSlot(
  from: string,
  tree: Tree,
  into: string,
  mode: FillMode,
): Promise<Filled> {
  const filled: Filled = {
    mode,
    byInode: new Map(),
    byRel: new Map(),
    files: new Set(),
    dirs: new Set(),
  };
  // The run waits for its fill: folders and links are made directly, paced as a walk is
  // (workspace-tree.ts); folders first, parents before children, as the tree lists them.
  const pace = walkPace();
  for (const entry of tree.entries) {
    if (entry.kind !== "dir") continue;
    await pace();
    const target = path.join(into, entry.rel);
    mkdirSync(target, { mode: 0o777 });
    chmodSync(target, 0o777);
    filled.dirs.add(entry.rel);
  }
  const files = tree.entries.filter((entry) => entry.kind === "file");
  if (mode === "link") {
    for (const entry of files) {
      await pace();
      linkSync(path.join(from, entry.rel), path.join(into, entry.rel));
      filled.files.add(entry.rel);
      filled.byInode.set(entry.inode, entry.rel);
    }
    return filled;
  }
  // A clone's cost grows with the file's extents: a few at a time, through the thread pool.
  const clone = async (entry: TreeEntry): Promise<void> => {
    const target = path.join(into, entry.rel);
    filled.files.add(entry.rel);
    await copyFile(path.join(from, entry.rel), target, constants.COPYFILE_FICLONE_FORCE);
    await chmod(target, 0o666);
    const info = await stat(target);
    filled.byRel.set(entry.rel, { bytes: info.size, mtimeMs: info.mtimeMs });
  };
  for (let at = 0; at < files.length; at += FILL_AT_ONCE) {
    await Promise.all(files.slice(at, at + FILL_AT_ONCE).map(clone));
  }
  return filled;
}

export interface BuiltVersion {
  files: number;
  bytes: number;
  /** Files added, changed or removed. */
  filesChanged: number;
  /** Bytes of the files added or changed. */
  bytesChanged: number;
}

/** Which kept file a file the run left is, unchanged; null when it is new or changed. */
function unchangedSource(
  filled: Filled,
  rel: string,
  inode: string,
  bytes: number,
  mtimeMs: number,
): string | null {
  if (filled.mode === "link") return filled.byInode.get(inode) ?? null;
  const was = filled.byRel.get(rel);
  return was !== undefined && was.bytes === bytes && was.mtimeMs === mtimeMs ? rel : null;
}

/** The version a slot holds (as scanned), as it would be built, and what it changed. */
export interface SlotPlan extends BuiltVersion {
  /** The run changed nothing: no version is built then. */
  unchanged: boolean;
  dirs: string[];
  steps: { rel: string; from: string; copy: boolean; bytes: number }[];
}

/**
 * Plans the version the run left in `slot` (scanned as `tree`): unchanged files to be linked
 * from `kept`, the others copied. Touches nothing, so the run's result can say what it changed
 * before the version is built.
 */
export function planFromSlot(slot: string, tree: Tree, kept: string, filled: Filled): SlotPlan {
  const steps: SlotPlan["steps"] = [];
  let filesChanged = 0;
  let bytesChanged = 0;
  let bytes = 0;
  const present = new Set<string>();
  const dirs: string[] = [];
  for (const entry of tree.entries) {
    if (entry.kind === "dir") {
      dirs.push(entry.rel);
      continue;
    }
    present.add(entry.rel);
    bytes += entry.bytes;
    const source = unchangedSource(filled, entry.rel, entry.inode, entry.bytes, entry.mtimeMs);
    if (source !== null && (source === entry.rel || filled.mode === "link")) {
      steps.push({
        rel: entry.rel,
        from: path.join(kept, source),
        copy: false,
        bytes: entry.bytes,
      });
      if (source !== entry.rel) filesChanged++; // kept content under a new name
    } else {
      steps.push({
        rel: entry.rel,
        from: path.join(slot, entry.rel),
        copy: true,
        bytes: entry.bytes,
      });
      filesChanged++;
      bytesChanged += entry.bytes;
    }
  }
  for (const rel of filled.files) if (!present.has(rel)) filesChanged++;
  const sameDirs = dirs.length === filled.dirs.size && dirs.every((rel) => filled.dirs.has(rel));
  const unchanged = filesChanged === 0 && sameDirs;
  return { unchanged, dirs, steps, files: steps.length, bytes, filesChanged, bytesChanged };
}

/** Builds in `target` the version `plan` describes (the slot no longer changing). */
export async function buildPlanned(plan: SlotPlan, target: string): Promise<BuiltVersion> {
  await mkdir(target, { mode: 0o755 });
  for (const rel of plan.dirs) await mkdir(path.join(target, rel), { mode: 0o755 });
  let bytes = 0;
  for (const step of plan.steps) {
    const to = path.join(target, step.rel);
    if (step.copy) await copyKept(step.from, to);
    else await link(step.from, to);
    bytes += step.bytes;
  }
  const { files, filesChanged, bytesChanged } = plan;
  return { files, bytes, filesChanged, bytesChanged };
}

/**
 * Builds in `target` the kept version `kept` with `remove` (a file or folder) taken out and
 * `add` (a file of the host's, copied in at `rel`) put in.
 */
export async function buildEdited(
  kept: string,
  keptTree: Tree,
  target: string,
  edit: { remove?: string; add?: { rel: string; from: string } },
): Promise<{ files: number; bytes: number }> {
  const gone = (rel: string): boolean =>
    edit.remove !== undefined && (rel === edit.remove || rel.startsWith(`${edit.remove}/`));
  const replaced = edit.add?.rel;
  await mkdir(target, { mode: 0o755 });
  let files = 0;
  let bytes = 0;
  for (const entry of keptTree.entries) {
    if (gone(entry.rel) || entry.rel === replaced) continue;
    const to = path.join(target, entry.rel);
    if (entry.kind === "dir") await mkdir(to, { mode: 0o755 });
    else {
      await link(path.join(kept, entry.rel), to);
      files++;
      bytes += entry.bytes;
    }
  }
  if (edit.add !== undefined) {
    const to = path.join(target, edit.add.rel);
    await mkdir(path.dirname(to), { recursive: true, mode: 0o755 });
    await copyKept(edit.add.from, to);
    files++;
    bytes += (await stat(to)).size;
  }
  return { files, bytes };
}

export { scanTree };
