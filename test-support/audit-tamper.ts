// What someone with write access to the data directory does to the audit log, done to real
// files: cut lines, and rewrite an entry then recompute every hash after it so the chain
// itself still verifies.
import { createHash } from "node:crypto";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { GENESIS_PREV } from "../shared/audit-entry.js";

export async function auditLogFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
}

export async function fileLines(dir: string, name: string): Promise<string[]> {
  return (await readFile(path.join(dir, name), "utf8")).split("\n").slice(0, -1);
}

export async function writeLines(dir: string, name: string, lines: string[]): Promise<void> {
  await writeFile(path.join(dir, name), lines.map((line) => `${line}\n`).join(""));
}

/**
 * Changes entry `seqToEdit` with `edit`, then recomputes each prev after it. Returns the new
 * head, as a checkpoint rewritten to match would hold it.
 */
export async function rewriteChain(
  dir: string,
  seqToEdit: number,
  edit: (entry: Record<string, unknown>) => void,
): Promise<{ seq: number; hash: string }> {
  let prev = GENESIS_PREV;
  let head = { seq: 0, hash: GENESIS_PREV };
  for (const name of await auditLogFiles(dir)) {
    const out: string[] = [];
    for (const line of await fileLines(dir, name)) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.seq === seqToEdit) edit(entry);
      if (entry.seq !== 1) entry.prev = prev;
      const text = JSON.stringify(entry);
      prev = createHash("sha256").update(text).digest("hex");
      head = { seq: entry.seq as number, hash: prev };
      out.push(text);
    }
    await writeLines(dir, name, out);
  }
  return head;
}

/** An unsigned checkpoint for `head`, as an attacker without the key can write one. */
export function forgedCheckpoint(head: { seq: number; hash: string }, firstSeq = 1): string {
  return JSON.stringify({ version: 1, ...head, firstSeq, signature: null });
}
