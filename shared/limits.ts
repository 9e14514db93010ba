// Every limit of Code Mode lives here, so that one test can pin them all and the UI,
// the skill text and the host can never disagree about a number.

const KiB = 1024;
const MiB = 1024 * KiB;

/** Sandbox container: what one run may use. */
export const SANDBOX_LIMITS = {
  memoryBytes: 256 * MiB,
  /** Equal to memoryBytes: Docker reads MemorySwap as memory + swap, so no swap at all. */
  memorySwapBytes: 256 * MiB,
  nanoCpus: 1_000_000_000,
  pids: 64,
  nofile: 64,
  tmpfsBytes: 16 * MiB,
  tmpfsOptions: "rw,noexec,nosuid,nodev",
  user: "65534:65534",
} as const;

/** Run deadline and output handling. */
export const RUN_LIMITS = {
  defaultDeadlineSeconds: 90,
  /** A run may ask for less time, never more. */
  minDeadlineSeconds: 1,
  maxDeadlineSeconds: 90,
  stdoutKeptBytes: 8 * KiB,
  stderrKeptBytes: 8 * KiB,
  /** A run whose code writes this much (stdout + stderr) is stopped. */
  outputStopBytes: 1 * MiB,
  /** Last traceback lines kept in `error`. */
  errorTailLines: 20,
  errorMaxChars: 4 * KiB,
  /** The most `stdin` text a run can be given. */
  stdinMaxBytes: 1 * MiB,
  /** The most code a run can be given. */
  codeMaxBytes: 256 * KiB,
} as const;

/** The runner <-> host pipe. Every line from the runner is hostile. */
export const PROTOCOL_LIMITS = {
  /** A line from the runner longer than this ends the run as a protocol violation. */
  lineMaxBytes: 128 * KiB,
  /** The runner sends captured output in chunks of at most this many characters. */
  outputChunkChars: 4 * KiB,
  /** The most calls one run may have in flight before the host stops reading more. */
  maxPendingCalls: 256,
} as const;

/** The bridge: what every tool call must satisfy. */
export const BRIDGE_LIMITS = {
  argsMaxBytes: 16 * KiB,
  defaultMaxCallsPerRun: 200,
  maxCallsPerRunCeiling: 10_000,
  callTimeoutMs: 30_000,
  resultMaxBytes: 64 * KiB,
  refusalMaxChars: 500,
  defaultServerConcurrency: 8,
} as const;

/** The tool catalog and the run_python description. */
export const CATALOG_LIMITS = {
  descriptionMaxBytes: 2 * KiB,
  stubTypeDepth: 5,
  paramNameMaxChars: 64,
  /** A schema nested deeper than this is not compiled: the tool is left out. */
  schemaMaxDepth: 32,
  defaultDescriptionBudgetChars: 12_000,
} as const;

/** The warm pool of started, idle containers. */
export const POOL_LIMITS = {
  defaultSize: 1,
  maxSize: 8,
} as const;

/** Settings the user can change, with their defaults and the bounds the host enforces. */
export const SETTINGS_BOUNDS = {
  deadlineSeconds: { min: 1, max: 90, default: 90 },
  maxCallsPerRun: { min: 1, max: 10_000, default: 200 },
  descriptionBudgetChars: { min: 1_000, max: 100_000, default: 12_000 },
  warmPoolSize: { min: 0, max: 8, default: 1 },
  serverConcurrency: { min: 1, max: 64, default: 8 },
  maxConcurrentRuns: { min: 1, max: 16, default: 4 },
  auditRetentionDays: { min: 1, max: 3650, default: 30 },
  auditMaxFileMiB: { min: 1, max: 1024, default: 16 },
  httpPort: { min: 1024, max: 65_535, default: 7717 },
} as const;

/** The host: queues, sockets and clients. */
export const HOST_LIMITS = {
  /** A run waiting for a free slot longer than this gets a clear "busy" error. */
  runQueueTimeoutMs: 60_000,
  /** The shim waits this long for the app it started. */
  shimStartWaitMs: 10_000,
  /** A client's self-reported name is cut to this before it keys taint and the audit log. */
  clientNameMaxChars: 200,
} as const;
