// How many bytes a directory holds: what a run's flood costs the data directory.
import { lstatSync, readdirSync } from "node:fs";
import path from "node:path";

/** Sum of the sizes of the regular files under `dir` (sockets and links count nothing). */
export function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(full);
    else if (entry.isFile()) total += lstatSync(full).size;
  }
  return total;
}
