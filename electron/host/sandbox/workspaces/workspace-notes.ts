// Changes the CLI makes to workspaces (`codemode workspace put|rm`), noted for the audit log. The
// log has one writer, the host (see review-notes.ts for why the CLI never writes it): the CLI
// appends a line here, and the host takes the lines (at start, and while it runs) and records
// each as a workspace_edited entry by "cli".
import { appendFile, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { WORKSPACE_EDITS } from "../../../../shared/audit-workspace-entries.js";
import { isErrno } from "../../util/errno.js";
import { MiB } from "../../util/units.js";

export const EDIT_NOTES_FILE = "cli-edits.jsonl";

/** A host reads at most this much of the notes at once; what is past it is counted, not kept. */
export const EDIT_NOTES_MAX_BYTES = 1 * MiB;

export const editNoteSchema = z.strictObject({
  client: z.string(),
  workspace: z.string(),
  action: z.enum(WORKSPACE_EDITS),
  path: z.string().optional(),
  bytes: z.number().int().min(0).optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  at: z.iso.datetime(),
});
export type EditNote = z.infer<typeof editNoteSchema>;

export async function noteEdit(root: string, note: EditNote): Promise<void> {
  await appendFile(path.join(root, EDIT_NOTES_FILE), `${JSON.stringify(note)}\n`, {
    mode: 0o600,
  });
}

/** Takes every note written so far (moved aside first, so a note appended meanwhile waits). */
export async function takeEditNotes(
  root: string,
): Promise<{ notes: EditNote[]; unreadable: number }> {
  const file = path.join(root, EDIT_NOTES_FILE);
  const taken = `${file}.taking-${process.pid}`;
  try {
    await rename(file, taken);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return { notes: [], unreadable: 0 };
    throw error;
  }
  try {
    const text = (await readFile(taken)).subarray(0, EDIT_NOTES_MAX_BYTES).toString("utf8");
    const notes: EditNote[] = [];
    let unreadable = 0;
    for (const line of text.split("\n")) {
      if (line === "") continue;
      let parsed;
      try {
        parsed = editNoteSchema.safeParse(JSON.parse(line));
      } catch {
        parsed = null;
      }
      if (parsed?.success) notes.push(parsed.data);
      else unreadable++;
    }
    return { notes, unreadable };
  } finally {
    await rm(taken, { force: true });
  }
}
