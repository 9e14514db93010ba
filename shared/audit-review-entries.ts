// The audit entries of the user's reviews: "ask first" approvals and pinned tool definitions.
// Shared with the UI, so free of Node imports.
import { z } from "zod";
import { common, count, millis } from "./audit-entry-fields.js";

/** How an "ask first" request ended. */
export const APPROVAL_ANSWERS = [
  "allow_once",
  "allow_run",
  "deny",
  "timeout",
  "cancelled",
] as const;
export const approvalAnswerSchema = z.enum(APPROVAL_ANSWERS);
export type ApprovalAnswer = z.infer<typeof approvalAnswerSchema>;

/** Where the answer came from: the desktop app, the browser UI, or the MCP client (elicitation). */
export const APPROVERS = ["app", "browser", "client"] as const;
export const approverSchema = z.enum(APPROVERS);
export type Approver = z.infer<typeof approverSchema>;

const approvalCall = {
  requestId: z.string(),
  runId: z.string(),
  client: z.string(),
  server: z.string(),
  /** The Python name the code called. */
  tool: z.string(),
  /** The server's own name for the tool. */
  serverTool: z.string(),
};

/** A call to an "ask first" tool passed every other check and now waits for the user. */
export const approvalRequestedEntrySchema = z.object({
  ...common,
  kind: z.literal("approval_requested"),
  ...approvalCall,
  /** JSON text of the arguments with secrets replaced and cut; null for private tools. */
  args: z.string().nullable(),
  /** Whether the question was also sent to the client (MCP elicitation). */
  elicited: z.boolean(),
});

/** What became of an approval request: who answered, how, and how long it waited. */
export const approvalAnsweredEntrySchema = z.object({
  ...common,
  kind: z.literal("approval_answered"),
  ...approvalCall,
  answer: approvalAnswerSchema,
  /** Null when nobody answered (a timeout, or the run ended first). */
  by: approverSchema.nullable(),
  waitedMs: millis,
});

/** Pinned tool definitions: what a held change is. */
const heldChange = {
  server: z.string(),
  /** The server's own name of the tool. */
  tool: z.string(),
  change: z.enum(["changed", "added", "removed"]),
  /** sha256 of the pinned definition (null when added) and of the held one (null when removed). */
  pinnedHash: z.string().nullable(),
  heldHash: z.string().nullable(),
};

/** A server's tools pinned for the first time (added, or first start after an upgrade). */
export const toolsPinnedEntrySchema = z.object({
  ...common,
  kind: z.literal("tools_pinned"),
  server: z.string(),
  count: z.number().int().nonnegative(),
});

/** A listed definition differs from its pin (or is new, or a pinned tool is gone): held. */
export const toolHeldEntrySchema = z.object({
  ...common,
  kind: z.literal("tool_held"),
  ...heldChange,
  /**
   * Held definitions of this server left out of the log (over PIN_HELD_LOGGED_PER_SERVER
   * in a window) since the last entry that said how many: a server can list thousands anew.
   */
  notLogged: count.optional(),
});

/**
 * A renamed server's pins and held changes moved to its new name (renamed in the app, the
 * whole config saved, or the file edited while nothing ran): its tools are not pinned afresh.
 */
export const pinsMovedEntrySchema = z.object({
  ...common,
  kind: z.literal("pins_moved"),
  from: z.string(),
  to: z.string(),
  /** Pinned definitions moved, and held ones (rejected included). */
  pinned: count,
  held: count,
});

/** The user accepted (re-pinned) or rejected a held definition. */
export const toolReviewedEntrySchema = z.object({
  ...common,
  kind: z.literal("tool_reviewed"),
  ...heldChange,
  decision: z.enum(["accept", "reject"]),
  by: z.enum(["app", "browser", "cli"]),
});
