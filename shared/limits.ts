// The limits that cross a boundary: what the UI shows or bounds (the settings, the API's
// parameters), what the runner in the sandbox is told or must keep to, what the model reads in
// the run_python description, and what more than one layer of the host must agree on. Every
// other limit is a named constant beside the module that uses it, pinned by that module's test.

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
  /**
   * Below what MCP clients built on the SDK wait for a request by default (60 s, cut then
   * unless the client resets its timeout on progress), with room for the container's start.
   */
  defaultDeadlineSeconds: 50,
  /** A run may ask for less time, never more. */
  minDeadlineSeconds: 1,
  maxDeadlineSeconds: 90,
  stdoutKeptBytes: 8 * KiB,
  stderrKeptBytes: 8 * KiB,
  errorMaxChars: 4 * KiB,
} as const;

/** The runner <-> host pipe. Every line from the runner is hostile. */
export const PROTOCOL_LIMITS = {
  /** A line from the runner longer than this ends the run as a protocol violation. */
  lineMaxBytes: 128 * KiB,
  /** The runner sends captured output in chunks of at most this many characters. */
  outputChunkChars: 4 * KiB,
  /** The most calls one run may have in flight before the host stops reading more. */
  maxPendingCalls: 256,
  /**
   * A call message's tool name must be an ASCII Python identifier of at most this many
   * characters, as every catalog name is (the catalog leaves out a tool whose name would be
   * longer); any other name is a protocol violation.
   */
  toolNameMaxChars: 1024,
} as const;

/**
 * Images the code attaches to its result with `show()`. They cross the runner ->
 * host pipe as `image_start`, `image_data` (base64 chunks) and `image_end` lines; a line that
 * breaks any of these bounds ends the run as a protocol violation. The runner applies the same
 * bounds first and, for an honest run, says on stderr why an image was left out.
 */
export const IMAGE_LIMITS = {
  /** Images one run may attach. */
  perRun: 4,
  /** One PNG; the runner downscales a larger one, and leaves it out if it cannot get under. */
  maxBytes: 1 * MiB,
  /** All of a run's images together (decoded bytes). */
  totalBytesPerRun: 2 * MiB,
  /** Base64 characters in one `image_data` line (a multiple of 4, so each chunk decodes alone). */
  chunkChars: 64 * KiB,
  /** An image's name: ASCII letters, digits, `.`, `_` and `-`, at most this long. */
  nameMaxChars: 64,
  /** A PNG wider or taller than this (as its header says) is refused. */
  maxSidePixels: 8_192,
  /** The host keeps the images and printed output of this many recent runs, for the Audit page. */
  cachedRuns: 16,
} as const;

/**
 * Named workspaces: a client's files kept between its runs (the `workspace` argument of
 * run_python), mounted at /workspace of the runs that name one. The size, count and keep time
 * are settings (SETTINGS_BOUNDS); these bound what the settings cannot.
 */
export const WORKSPACE_LIMITS = {
  /** A workspace's name: ASCII letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
  nameMaxChars: 64,
  defaultMaxBytes: 1024 * MiB,
  defaultMaxPerClient: 20,
  defaultKeepDays: 7,
  /** Files and folders one workspace holds (each costs the host a link at every run). */
  maxEntries: 100_000,
  /** A path inside a workspace (the UI, the CLI, save/load names). */
  pathMaxChars: 1_024,
  /** One chunk of a file the UI uploads or downloads (raw bytes; base64 in the message). */
  transferChunkBytes: 1 * MiB,
} as const;

/**
 * Files the code attaches with attach(path): each reaches the client as a resource_link it
 * reads back with resources/read. They cross the pipe as `file_start`, `file_data` (base64
 * chunks) and `file_end` lines, checked as images are.
 */
export const ATTACH_LIMITS = {
  perRun: 8,
  /** One file: it goes back whole in one resources/read answer (base64). */
  maxBytes: 4 * MiB,
  totalBytesPerRun: 16 * MiB,
  chunkChars: 64 * KiB,
  /** The file's name as the client sees it (its last path part, made plain ASCII). */
  nameMaxChars: 128,
  /** A MIME type as the runner guesses it from the name. */
  mimeMaxChars: 100,
} as const;

/** The bridge: what every tool call must satisfy. */
export const BRIDGE_LIMITS = {
  argsMaxBytes: 16 * KiB,
  defaultMaxCallsPerRun: 200,
  maxCallsPerRunCeiling: 10_000,
  callTimeoutMs: 30_000,
  resultMaxBytes: 64 * KiB,
  refusalMaxChars: 500,
  /**
   * The most tool calls one server gets from Code Mode at once, all runs together (the
   * setting's default); more wait their turn. It keeps a burst (code gathering hundreds of
   * calls) from opening hundreds of requests to one server process and the service behind
   * it. Each burst starts at serverConcurrencyStart and goes up to this only while the
   * server answers as fast as before (server-slots.ts; `bench/concurrent-calls.ts`).
   */
  defaultServerConcurrency: 64,
  /** Slots a server has when a burst starts, and the least it falls back to when slow. */
  serverConcurrencyStart: 16,
  /** A tool name recorded in an event: the whole name unless it is absurdly long. */
  eventNameMaxChars: 200,
} as const;

/** The tool catalog and the run_python description. */
export const CATALOG_LIMITS = {
  /**
   * The most characters of the run_python description's tool part (full stubs, else the
   * index of servers and tool names): the model pays for them in every conversation, so they
   * stay few whatever the catalog's size; stubs are looked up from the code.
   */
  defaultDescriptionBudgetChars: 3_000,
  /** search_tools() in the sandbox: results when the code names no limit... */
  searchDefaultResults: 10,
  /** ...and the most it returns whatever limit it names, so a lookup stays small to print. */
  searchMaxResults: 50,
  /** A longer query is cut: its words are matched against every tool, so they are bounded. */
  searchQueryMaxChars: 200,
} as const;

/** The warm pool of started, idle containers. */
export const POOL_LIMITS = {
  /** Idle containers kept when runs are quiet (the floor the pool shrinks back to). */
  defaultSize: 2,
  maxSize: 8,
  /**
   * The most idle containers the pool grows to under demand; the concurrent-runs setting caps
   * it too. Chosen from bench/pool-burst.ts on the 2-core machine (docs/performance.md).
   */
  defaultGrowMax: 4,
  growMaxCeiling: 16,
  /** A grown pool with no take for this long halves its target (down to the floor). */
  defaultIdleSeconds: 60,
  minIdleSeconds: 5,
  maxIdleSeconds: 3_600,
} as const;

/** The host: queues, sockets and clients. */
export const HOST_LIMITS = {
  /** A client's self-reported name is cut to this before it keys taint and the audit log. */
  clientNameMaxChars: 200,
  /**
   * Browser mode: answers and events a WebSocket may leave unread in the host's memory; past it
   * the socket is closed. Room for a few of the largest answers (API_LIMITS.responseMaxChars).
   */
  wsUnreadMaxBytes: 64 * MiB,
  /**
   * TCP connections each loopback HTTP server (MCP over HTTP, the browser UI) holds at once; past
   * it the oldest that showed no token is closed (ConnectionCap), as closing the one that comes
   * would let a flood lock the real client out. Any local user can connect to 127.0.0.1, token
   * or not: uncapped, a loop of idle connections would take one descriptor each until the host
   * had none left for the audit log, the local socket or Docker.
   */
  httpConnectionsMax: 1024,
  /**
   * Answers a shim's connection may leave unread in the host's memory; past it the connection
   * is closed. Above the largest answer (a run's result with its images, ~3 MB in base64).
   */
  socketUnreadMaxBytes: 16 * MiB,
  /** While a run goes, a request that carries a progressToken gets progress this often. */
  runProgressIntervalMs: 5_000,
  /**
   * How long MCP clients built on the SDK wait for a request by default: a run longer than
   * this needs a client that waits longer or resets its timeout on progress.
   */
  clientDefaultTimeoutSeconds: 60,
  /**
   * Browser mode: a link that opens the UI (`/#ticket=...`) works once, within this time. It
   * reaches the browser through process arguments, which every user of the machine can read.
   */
  uiTicketTtlMs: 60_000,
} as const;

/**
 * The typed API the UI calls (over IPC or the browser WebSocket): the most each request
 * parameter may carry. The host validates every request against these before a handler runs.
 * String lengths are counted in UTF-16 code units, as zod counts them.
 */
export const API_LIMITS = {
  /** The name of an existing server (remove, restart, tools, setToolPolicy, previousName). */
  serverNameMaxChars: 64,
  /** The name servers.upsert is given; the config check then applies its own rules to it. */
  upsertNameMaxChars: 200,
  /**
   * A tool name in servers.setToolPolicy and servers.review: as long as any name the pins
   * and the catalog take (PROTOCOL_LIMITS.toolNameMaxChars), so every held tool can be reviewed.
   */
  toolNameMaxChars: 1024,
  /** The env name a `{storedSecret: NAME}` value points at (servers.upsert, config.save). */
  envNameMaxChars: 512,
  /** A client key in taint.reset. */
  clientKeyMaxChars: 512,
  /** The free-text search of an audit query. */
  auditTextMaxChars: 1_000,
  /** A run id in audit.run. */
  runIdMaxChars: 100,
  /** A whole config file (config.save) or a pasted snippet (config.parseSnippet). */
  configTextMaxChars: 1 * MiB,
  /** Browser mode: the ticket or session in the hello message. */
  wsTokenMaxChars: 256,
  /** Browser mode: a channel or event name in a message. */
  wsNameMaxChars: 64,
  /**
   * The longest answer (as JSON) any API request may get; a longer one is an error reply.
   * Above what a full page of audit.query (AUDIT_QUERY_PAGE_MAX_CHARS plus one entry) or
   * one run's detail (its audit bytes are capped by RUN_COST_LIMITS.auditBytesPerRun) takes.
   */
  responseMaxChars: 16 * MiB,
  /** servers.tools: the most tools one page may be asked for (and the default). */
  toolsPageMaxLimit: 1000,
  /**
   * servers.list (and every answer or servers.changed event carrying the server list): the
   * most servers one page may hold (and the default). A page also ends past LIST_PAGE_MAX_CHARS.
   */
  serversPageMaxLimit: 100,
  /** clients.list and the clients.changed event: the most connected clients one page holds. */
  clientsPageMaxLimit: 100,
  /** taint.list, taint.reset and the taint.changed event: the most records one page holds. */
  taintPageMaxLimit: 100,
  /** servers.held: the most held tools one page may be asked for (and the default). */
  heldPageMaxLimit: 200,
  /**
   * servers.review: the most held tools one request reviews (well under a browser message with
   * names at toolNameMaxChars); the UI's "Accept all" sends more in several requests.
   */
  reviewMaxTools: 1000,
  /** A path on the app's machine the UI names (image.build's base image archive). */
  pathMaxChars: 4_096,
} as const;

/** The audit log. */
export const AUDIT_LIMITS = {
  /**
   * `code` of run_started is cut to this, its start and its end kept and the middle taken out;
   * codeBytes and codeHash still cover all of it.
   */
  codeMaxBytes: 16 * KiB,
  /** `args` of call entries (JSON text). */
  argsMaxBytes: 2 * KiB,
  /**
   * What the Audit page shows of a recent run's printed output, stdout and stderr each: held in
   * memory while the app runs (as many runs as it keeps images of), never written to the log.
   */
  runOutputShownBytes: 4 * KiB,
  /** A file is closed and a new one started before a line would take it past this size. */
  defaultMaxFileBytes: 16 * MiB,
  defaultRetentionDays: 30,
  /** Past this total size of the audit files, the oldest files are removed (never the newest). */
  defaultMaxTotalBytes: 256 * MiB,
  queryMaxLimit: 1000,
} as const;

/**
 * Local access: the socket (or pipe), its handshake, the token and lock files, and the shim
 * that MCP clients start. The names and wire values are in local-access-constants.ts.
 */
export const LOCAL_ACCESS_LIMITS = {
  /** A client that has not finished its handshake line by then is refused. */
  handshakeTimeoutMs: 5_000,
  /**
   * A token, lock or install-id file found empty is re-read for this long before it is judged
   * damaged or stale: a concurrent starter may be between its O_EXCL create and its write.
   */
  emptyFileSettleMs: 1_000,
  /** Pause between those re-reads: short, since the other starter's write is imminent. */
  emptyFileRetryMs: 20,
} as const;

/** File modes; enforced on Unix only (Windows has no mode bits; the pipe is guarded by the token). */
export const LOCAL_ACCESS_MODES = {
  tokenFile: 0o600,
  lockFile: 0o600,
  dataDir: 0o700,
} as const;

/**
 * What one run may cost the host, whatever its code does: every bound here ends the run
 * rather than letting it write on, so the audit log and the disk grow by a bounded amount.
 */
export const RUN_COST_LIMITS = {
  /**
   * Bytes of audit entries one run may write (its start and its calls, as the log writes them).
   * A call goes out only with room for its entry at its largest set aside; once there is none
   * its calls are refused before going out, counted, not logged, and the run is stopped
   * (`audit_limit`). Its end is always logged.
   */
  auditBytesPerRun: 8 * MiB,
} as const;

/** The catalog of well-known servers shipped with the app, and the values a user gives it. */
export const SERVER_CATALOG_LIMITS = {
  /** The shipped catalog holds at least this many entries. */
  minEntries: 20,
  /** One setting's value (a folder, a token, a connection string). */
  valueMaxChars: 4_096,
  /** Values one setting may take (the folders a filesystem server may use). */
  valuesPerSettingMax: 32,
  /** Settings one request may name (more than any entry has; bounds hostile input). */
  settingsMax: 64,
  /** An entry's description, so the gallery stays a gallery. */
  descriptionMaxChars: 300,
  /** The gallery's search text. */
  searchMaxChars: 200,
  /** A setting's one-line help text. */
  settingHelpMaxChars: 400,
  /** Tools an entry suggests asking first about. */
  askToolsMax: 32,
} as const;

/**
 * MCP Bundles (.mcpb): a zip from anywhere, unpacked into the data directory. Every number
 * here bounds what a hostile bundle can make the host read, inflate or write.
 */
export const MCPB_LIMITS = {
  /** A .mcpb file as read from disk (`servers add --from-mcpb`). */
  bundleMaxBytes: 64 * MiB,
  /**
   * A bundle sent by the UI through the API: it travels base64 in one API message, which in
   * browser mode must fit the UI server's WS_MESSAGE_MAX_BYTES. Bigger ones go through the CLI.
   */
  uploadMaxBytes: 1 * MiB,
  /** Files and folders in one bundle. */
  entriesMax: 10_000,
  /** All files of a bundle once unpacked, counted as they are inflated (not as declared). */
  unpackedMaxBytes: 256 * MiB,
  /** One path inside the bundle. */
  entryNameMaxChars: 1_024,
} as const;

/**
 * Settings the user can change, with their defaults and the bounds the host enforces. Where a
 * bound or default is a limit above, it is that limit, not a copy of its number (so this comes
 * after them all).
 */
export const SETTINGS_BOUNDS = {
  deadlineSeconds: {
    min: RUN_LIMITS.minDeadlineSeconds,
    max: RUN_LIMITS.maxDeadlineSeconds,
    default: RUN_LIMITS.defaultDeadlineSeconds,
  },
  maxCallsPerRun: {
    min: 1,
    max: BRIDGE_LIMITS.maxCallsPerRunCeiling,
    default: BRIDGE_LIMITS.defaultMaxCallsPerRun,
  },
  descriptionBudgetChars: {
    min: 1_000,
    max: 100_000,
    default: CATALOG_LIMITS.defaultDescriptionBudgetChars,
  },
  warmPoolSize: { min: 0, max: POOL_LIMITS.maxSize, default: POOL_LIMITS.defaultSize },
  warmPoolMaxSize: {
    min: 0,
    max: POOL_LIMITS.growMaxCeiling,
    default: POOL_LIMITS.defaultGrowMax,
  },
  warmPoolIdleSeconds: {
    min: POOL_LIMITS.minIdleSeconds,
    max: POOL_LIMITS.maxIdleSeconds,
    default: POOL_LIMITS.defaultIdleSeconds,
  },
  serverConcurrency: { min: 1, max: 64, default: BRIDGE_LIMITS.defaultServerConcurrency },
  maxConcurrentRuns: { min: 1, max: 16, default: 4 },
  auditRetentionDays: { min: 1, max: 3650, default: AUDIT_LIMITS.defaultRetentionDays },
  auditMaxFileMiB: { min: 1, max: 1024, default: AUDIT_LIMITS.defaultMaxFileBytes / MiB },
  /** All audit files together; the oldest files go first past it. */
  auditMaxTotalMiB: { min: 16, max: 1_048_576, default: AUDIT_LIMITS.defaultMaxTotalBytes / MiB },
  httpPort: { min: 1024, max: 65_535, default: 7717 },
  /** How long an "ask first" call waits for the user before it is denied. */
  approvalTimeoutSeconds: { min: 1, max: 600, default: 60 },
  /** The most one workspace may hold, all its files together. */
  workspaceMaxMiB: { min: 1, max: 1_048_576, default: WORKSPACE_LIMITS.defaultMaxBytes / MiB },
  /** Workspaces one client may have at once. */
  workspacesPerClient: { min: 1, max: 1_000, default: WORKSPACE_LIMITS.defaultMaxPerClient },
  /** A workspace no run opened for this long is removed. */
  workspaceKeepDays: { min: 1, max: 3650, default: WORKSPACE_LIMITS.defaultKeepDays },
} as const;

/** A secret shorter than this is masked nowhere (the server form warns when one is marked). */
export const SECRET_LIMITS = { maskMinChars: 8 } as const;

/** The container engine the user chose (Sandbox page, `codemode engine use`, `--engine`). */
export const ENGINE_LIMITS = {
  /** A chosen engine's name or URL is at most this long (the settings check and the UI). */
  choiceMaxChars: 500,
} as const;

/** "Ask first" calls waiting for the user. */
export const APPROVAL_LIMITS = {
  /** A request id (a UUID) as the API accepts it. */
  idMaxChars: 64,
  /**
   * A question never outlasts its run: it closes this long before the run's deadline, so the
   * code hears that nobody answered (a ToolError it can report) before the run is stopped.
   */
  runDeadlineMarginMs: 2_000,
  /** With less time than this left to ask (the deadline's margin taken), no question is shown. */
  minWaitMs: 1_000,
} as const;

/** The review of held tool definitions in the UI: what its line diff compares. */
export const REVIEW_DIFF_LIMITS = {
  /** A side longer than this is not compared line by line: both are shown whole. */
  linesMax: 5_000,
  /**
   * The comparison table (changed lines before × after, past the common start and end) is
   * at most this many cells (4 bytes each): more, and both sides are shown whole.
   */
  cellsMax: 1_000_000,
} as const;

/** Pinned tool definitions: what the pin store keeps of each server's tools. */
export const PIN_LIMITS = {
  /**
   * A pinned definition (canonical JSON) longer than this is kept as its hash only: a change
   * is still held, the review just cannot show the old side.
   */
  definitionMaxChars: 64 * KiB,
} as const;
