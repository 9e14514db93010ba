// Retention by size: past a total size, the oldest audit files go first, as retention by age
// does, so what remains is one unbroken stretch of the chain. The newest file is never
// removed: it is the one being written (or about to be continued).
import { stat, unlink } from "node:fs/promises";
import type { AuditFile } from "./audit-files.js";
import { isErrno } from "../util/errno.js";

/** What one pass removed: enough for an `audit_pruned` entry. */
export interface SizePruned {
  files: string[];
  fromSeq: number;
  toSeq: number;
  bytes: number;
}

/**
 * Deletes the oldest of `files` (sorted oldest first) while their total size is over
 * `maxTotalBytes`, keeping at least the newest. `beforeRemove` is told the seq the log will
 * start at before each file goes, so the checkpoint records the cut before it happens.
 */
export async function pruneToSize(
  files: AuditFile[],
  maxTotalBytes: number,
  beforeRemove: (firstKeptSeq: number) => Promise<void> | undefined,
): Promise<{ pruned: SizePruned | null; kept: AuditFile[] }> {
  const sizes: number[] = [];
  for (const file of files) sizes.push((await stat(file.path).catch(() => null))?.size ?? 0);
  let total = sizes.reduce((sum, size) => sum + size, 0);
  const removed: string[] = [];
  let bytes = 0;
  let index = 0;
  for (; index < files.length - 1 && total > maxTotalBytes; index += 1) {
    const file = files[index] as AuditFile;
    const next = files[index + 1] as AuditFile;
    await beforeRemove(next.firstSeq);
    try {
      await unlink(file.path);
    } catch (error) {
      if (!isErrno(error, "ENOENT")) throw error;
    }
    const size = sizes[index] ?? 0;
    total -= size;
    bytes += size;
    removed.push(file.name);
  }
  const kept = files.slice(index);
  if (removed.length === 0) return { pruned: null, kept };
  const fromSeq = (files[0] as AuditFile).firstSeq;
  const toSeq = (kept[0] as AuditFile).firstSeq - 1;
  return { pruned: { files: removed, fromSeq, toSeq, bytes }, kept };
}
