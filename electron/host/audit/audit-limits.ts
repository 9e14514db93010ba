// The audit log's limits. They are meant to move into shared/limits.ts, where one test pins
// every limit of the app; until then audit-limits.test.ts pins these.

const KiB = 1024;
const MiB = 1024 * KiB;

export const AUDIT_LIMITS = {
  /** `code` of run_started is cut to this; codeBytes and codeHash still cover all of it. */
  codeMaxBytes: 16 * KiB,
  /** `error` of run_finished and image_build. */
  errorMaxBytes: 2 * KiB,
  /** `args` of call entries (JSON text). */
  argsMaxBytes: 2 * KiB,
  /** Every other free-text field (reason, detail, summary, ...). */
  textMaxBytes: 2 * KiB,
  /** Arguments nested deeper than this are logged as a placeholder. */
  argsMaxDepth: 64,
  /** A file is closed and a new one started before a line would take it past this size. */
  defaultMaxFileBytes: 16 * MiB,
  defaultRetentionDays: 30,
  /** Entries queued while a sync is in flight are written together, up to this many bytes. */
  batchMaxBytes: 1 * MiB,
  /** How far a timestamp may go back before verify calls the order into question. */
  clockSkewMs: 60_000,
  queryDefaultLimit: 100,
  queryMaxLimit: 1000,
  /** Chunk size for reading files from the end. */
  readChunkBytes: 256 * KiB,
} as const;
