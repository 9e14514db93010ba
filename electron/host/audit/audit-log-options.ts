// What an AuditLog is opened with, and what it reports: the shapes its users name.
import type { AuditEntry } from "../../../shared/audit-entry.js";
import type { AuditVerifyProgress } from "../../../shared/audit-query-types.js";
import type { CheckpointSigner } from "./audit-checkpoint.js";
import type { CheckpointExpectations } from "./audit-checkpoint-open.js";

export interface AuditLogOptions {
  dir: string;
  now?: () => Date;
  /** Default AUDIT_LIMITS.defaultMaxFileBytes. */
  maxFileBytes?: number;
  /** Default AUDIT_LIMITS.defaultRetentionDays. */
  retentionDays?: number;
  /** Default AUDIT_LIMITS.defaultMaxTotalBytes: past it the oldest files are removed. */
  maxTotalBytes?: number;
  /** Sync each write before acknowledging it. Default true; false only for tests and benches. */
  fsync?: boolean;
  /** How often durable writes may start while entries keep coming (AUDIT_SYNC_MIN_INTERVAL_MS unless said). */
  syncMinIntervalMs?: number;
  /** The secrets of the moment; every text of every entry is scrubbed of them. */
  secrets?: () => readonly string[];
  /** Where failures that must not stop the log go: a throwing listener, a failed cleanup. */
  onError?: (error: unknown) => void;
  /** Keeps the head outside the log (audit-checkpoint.ts); absent: no checkpoint. */
  checkpoint?: { file: string; signer?: CheckpointSigner | null } & CheckpointExpectations;
}

export type AuditListener = (entry: AuditEntry) => void;
export type VerifyProgressListener = (progress: AuditVerifyProgress) => void;

export interface AuditLogStats {
  /** Entries made durable since open. */
  entries: number;
  writes: number;
  /** Writes made durable: each followed by fdatasync, or written to a file opened O_DSYNC. */
  syncs: number;
}
