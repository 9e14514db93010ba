// Reviews made by `codemode servers accept|reject`, noted beside the pin file (`FILE.reviews`,
// one JSON line each) for the audit. The audit log has one writer, the host, guarded by the
// app's instance lock; the CLI taking that lock would make an app starting at that moment
// fail as "already running", and writing the log beside a running host would fork its hash
// chain. So the CLI notes its reviews (under the pin file's lock, with the pin file itself),
// and the host records them as `tool_reviewed` by "cli": at once when it runs (it watches the
// pin file), else when it next starts. Notes are taken (read, then removed) under the same lock.
import { appendFile, open, rm } from "node:fs/promises";
import { z } from "zod";
import type { Decision, HeldChange } from "./pin-state.js";
import { MiB } from "../../util/units.js";

/**
 * Reviews the CLI made, noted beside the pin file for the host's audit (`FILE.reviews`):
 * a host reads at most this many bytes of notes; past them it records one line saying so.
 */
export const PIN_REVIEW_NOTES_MAX_BYTES = 1 * MiB;

const hashOrNull = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .nullable();

export const reviewNoteSchema = z.strictObject({
  server: z.string(),
  tool: z.string(),
  kind: z.enum(["changed", "added", "removed"]),
  pinnedHash: hashOrNull,
  heldHash: hashOrNull,
  decision: z.enum(["accept", "reject"]),
  at: z.iso.datetime(),
});

export type ReviewNote = z.infer<typeof reviewNoteSchema>;

export function reviewNotesPath(pinFile: string): string {
  return `${pinFile}.reviews`;
}

/** Appends one note per reviewed change. Call holding the pin file's lock. */
export async function noteReviews(
  pinFile: string,
  server: string,
  changes: readonly HeldChange[],
  decision: Decision,
  at: string,
): Promise<void> {
  const lines = changes.map((c) => {
    const note: ReviewNote = { server, ...c, decision, at };
    return `${JSON.stringify(note)}\n`;
  });
  await appendFile(reviewNotesPath(pinFile), lines.join(""), { mode: 0o600 });
}

export interface TakenNotes {
  notes: ReviewNote[];
  /** Lines that were not notes, or bytes past PIN_REVIEW_NOTES_MAX_BYTES: not recorded. */
  unreadable: number;
}

/** Reads the notes (at most PIN_REVIEW_NOTES_MAX_BYTES) and removes the file. Under the lock. */
export async function takeReviewNotes(pinFile: string): Promise<TakenNotes> {
  const file = reviewNotesPath(pinFile);
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { notes: [], unreadable: 0 };
    throw error;
  }
  let text: string;
  let past: number;
  try {
    const size = (await handle.stat()).size;
    const want = Math.min(size, PIN_REVIEW_NOTES_MAX_BYTES);
    const buffer = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buffer, 0, want, 0);
    text = buffer.subarray(0, bytesRead).toString("utf8");
    past = size - bytesRead;
  } finally {
    await handle.close();
  }
  const notes: ReviewNote[] = [];
  let unreadable = past > 0 ? 1 : 0;
  // A line cut by the byte cap does not parse: it counts as unreadable with what follows.
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      unreadable += 1;
      continue;
    }
    const checked = reviewNoteSchema.safeParse(value);
    if (checked.success) notes.push(checked.data);
    else unreadable += 1;
  }
  await rm(file, { force: true });
  return { notes, unreadable };
}
