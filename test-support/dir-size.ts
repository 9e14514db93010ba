// How many bytes a directory holds: what a run's flood costs the data directory.
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * Sum of the sizes of the regular files under `dir` (sockets and links count nothing). A live
 * daemon writes some files by a temporary file renamed into place (the audit checkpoint, every
 * second): one listed and gone before its size is read counts nothing, as it holds nothing now.
 */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(full);
    else if (entry.isFile()) total += lstatSync(full, { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}
