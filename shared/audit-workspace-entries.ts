// The audit log's word on workspaces and attached files: what a run did to the workspace it
// opened and the files it attached (fields of run_finished), and what the user did to a
// workspace from the UI or the CLI (workspace_edited), and what became of a run's workspace when
// its keep, after the run's answer, found otherwise than the answer said (workspace_keep_differed).
// Shared with the UI, so free of Node imports.
import { z } from "zod";
import { common, count, sha256Hex } from "./audit-entry-fields.js";

/** run_finished's `workspace`: what became of the workspace the run opened. */
export const runWorkspaceField = z.object({
  name: z.string(),
  /** Whether the run's changes were kept (none are when it was stopped or went over the limit). */
  kept: z.boolean(),
  filesChanged: count,
  bytesChanged: count,
  /** What it holds after the run. */
  files: count,
  bytes: count,
  private: z.boolean(),
  /** What the run was told of the previous run's keep, when it differed from that run's result. */
  notice: z.string().optional(),
});

/** run_finished's `files`: each file the code attached, by its link (never its bytes). */
export const runFilesField = z.array(
  z.object({
    name: z.string(),
    bytes: count,
    sha256: sha256Hex,
    mimeType: z.string(),
    uri: z.string(),
  }),
);

/** Where a workspace was changed from, outside a run. */
export const WORKSPACE_EDITORS = ["ui", "cli", "sweep"] as const;

export const WORKSPACE_EDITS = ["file_added", "file_removed", "workspace_removed"] as const;

export const workspaceEditedEntrySchema = z.object({
  ...common,
  kind: z.literal("workspace_edited"),
  /** The client whose workspace it is. */
  client: z.string(),
  workspace: z.string(),
  action: z.enum(WORKSPACE_EDITS),
  by: z.enum(WORKSPACE_EDITORS),
  /** The file added or removed (absent when the whole workspace went). */
  path: z.string().optional(),
  /** An added file's size and hash. */
  bytes: count.optional(),
  sha256: sha256Hex.optional(),
});

/**
 * A run is answered once its code has ended, and what it left in its workspace is kept once its
 * container has stopped. When the keep finds otherwise than the answer said (the code, a thread
 * or a process it left, wrote after the end; the container could not be stopped; the keep
 * failed), this entry says what became of the workspace, and the next run that opens it is told
 * (`notice` in its run_finished's `workspace`).
 */
export const workspaceKeepDifferedEntrySchema = z.object({
  ...common,
  kind: z.literal("workspace_keep_differed"),
  runId: z.string(),
  client: z.string(),
  workspace: z.string(),
  /** What the slot held once the container stopped was kept whole; false: nothing of the run. */
  kept: z.boolean(),
  /** Why, as the next run that opens the workspace is told. */
  reason: z.string(),
  /** What the run's result said. */
  answered: runWorkspaceField,
  /** What the workspace holds now. */
  now: runWorkspaceField,
});
