// What the Audit page and the CLI ask of the log and get back: filters, pages, run details and
// the verify result. Shared with the UI, so free of Node imports.
import { z } from "zod";
import { callDecisionSchema } from "./audit-entry-fields.js";
import type {
  AuditEntry,
  AuditEntryOf,
  CallEntry,
  RunFinishedEntry,
  RunStartedEntry,
} from "./audit-entry.js";
import { API_LIMITS } from "./limits.js";

/**
 * What the audit view can ask for. Every field narrows the result; an entry without the field
 * a filter names (a `config_changed` entry for a `client` filter) does not match it.
 */
export const auditFilterSchema = z.strictObject({
  /** ISO time, inclusive. */
  from: z.string().optional(),
  /** ISO time, exclusive. */
  to: z.string().optional(),
  client: z.string().optional(),
  /** Matches `server`, and `servers` of config changes. */
  server: z.string().optional(),
  /** Matches the Python name or the server's name for the tool. */
  tool: z.string().optional(),
  decision: callDecisionSchema.optional(),
  /** Any of these kinds; an empty list means any kind. */
  kinds: z.array(z.string()).readonly().optional(),
  /** Case-insensitive substring of one of the entry's texts (entryText in audit-filter.ts). */
  text: z.string().max(API_LIMITS.auditTextMaxChars).optional(),
  runId: z.string().optional(),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export interface AuditPage {
  limit?: number;
  /** Only entries with a smaller seq: the `nextBefore` of the previous page. */
  before?: number;
}

export interface AuditQueryResult {
  /** Newest first. */
  entries: AuditEntry[];
  /** Pass as `before` for the next page; null when there are no more matches. */
  nextBefore: number | null;
}

/** One run for the detail panel. */
/** An image a run attached, as the Audit page gets it while the host still holds its bytes. */
export interface AuditRunImage {
  name: string;
  bytes: number;
  sha256: string;
  width: number;
  height: number;
  pngBase64: string;
}

/** What a recent run printed, as the Audit page gets it while the host still holds it. */
export interface AuditRunOutput {
  /** Each cut to AUDIT_LIMITS.runOutputShownBytes (its start kept), secrets masked. */
  stdout: string;
  stderr: string;
  /** Bytes each printed in all (of what the run kept: RUN_LIMITS.stdoutKeptBytes at most). */
  stdoutBytes: number;
  stderrBytes: number;
}

export interface AuditRunDetail {
  /**
   * What the run printed, while the host holds it in memory (recent runs, while the app runs);
   * absent from hosts without it, and from the log itself.
   */
  output?: AuditRunOutput;
  /**
   * Images of the run the host still holds in memory (recent runs, while the app runs); absent
   * from hosts without images, and from the log itself.
   */
  images?: AuditRunImage[];
  started: RunStartedEntry | null;
  /** In the order they were logged. */
  calls: CallEntry[];
  finished: RunFinishedEntry | null;
  /** Set when the run never finished because the app stopped under it. */
  abandoned: AuditEntryOf<"run_abandoned"> | null;
}

/** How far `verify` has read the log (the Audit page's bar, and `codemode audit verify`'s). */
export interface AuditVerifyProgress {
  doneBytes: number;
  totalBytes: number;
  /** Entries checked so far. */
  entries: number;
  /** True once, when every file has been read. */
  done: boolean;
}

export type AuditVerifyResult =
  | {
      ok: true;
      entries: number;
      firstSeq: number | null;
      lastSeq: number | null;
      /** The newest entry's seq and hash: noted, `codemode audit verify --head` checks against it. */
      head: { seq: number; hash: string } | null;
      /** What the user should know though nothing is wrong (a retention cut, a crash). */
      note: string | null;
    }
  | {
      ok: false;
      /** Entries that checked out before the first bad one. */
      entries: number;
      firstBad: { file: string; line: number; seq: number | null; problem: string };
      note: string | null;
    };
