// Fields every audit entry schema shares (the chain's seq, ts and prev) and small value
// shapes several entry modules use. Shared with the UI, so free of Node imports.
import { z } from "zod";

/**
 * What became of a call. allowed: the result reached the code. refused: a bridge check said
 * no (before the call went out, or an oversized result). failed: the call went out and the
 * server or the host side failed (tool error, timeout, cancellation, fault).
 */
export const callDecisionSchema = z.enum(["allowed", "refused", "failed"]);
export type AuditCallDecision = z.infer<typeof callDecisionSchema>;

export const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
export const count = z.number().int().nonnegative();
export const millis = z.number().nonnegative();

// Objects are not strict: a newer app may add a field, and an older one must still be able to
// verify and show the log. The hash chain, not the schema, is what catches edits.
export const common = {
  /** 1-based, one more than the entry before it, across all files. */
  seq: z.number().int().positive(),
  /** When the entry was written (ISO 8601, UTC); never earlier than the entry before. */
  ts: z.iso.datetime(),
  /**
   * sha256 (hex) of the previous entry's line exactly as written, without its newline;
   * GENESIS_PREV for the first entry.
   */
  prev: sha256Hex,
};
