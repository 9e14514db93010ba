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
  /** A run whose code writes this much (stdout + stderr) is stopped. */
  outputStopBytes: 1 * MiB,
  /** Last traceback lines kept in `error`. */
  errorTailLines: 20,
  errorMaxChars: 4 * KiB,
  /** The most `stdin` text a run can be given. */
  stdinMaxBytes: 1 * MiB,
  /** The most code a run can be given. */
  codeMaxBytes: 256 * KiB,
  /**
   * The image probe (imports the bundled libraries and prints their versions) is our own
   * code, not the user's, so it gets a fixed deadline rather than the user's setting.
   */
  imageProbeDeadlineSeconds: 60,
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
  /**
   * A runner says nothing before its start line; stdout that comes early is kept up to about
   * this much (the chunk that crosses it is still kept), so the session can report it as the
   * protocol violation it is without buffering a flood.
   */
  earlyOutputMaxBytes: 64 * KiB,
  /**
   * A done message's `error` is cut to its last this-many characters before anything else
   * looks at it. The runner sends at most errorMaxChars code points (plus "..."), which is at
   * most twice that in UTF-16 units, so an honest traceback is never cut here.
   */
  doneErrorMaxChars: 8 * KiB,
  /**
   * Tool results the host may hold for a container whose runner does not read them (the code
   * can stop the runner's reader); past it the run ends as a protocol violation. Every call in
   * flight answered at once with a result at the bridge's cap (256 x 64 KiB, ~16 MiB, twice
   * that if JSON escapes every other character) fits with room to spare.
   */
  resultsUnreadMaxBytes: 64 * MiB,
  /**
   * A line may be longer than six times its content's compact JSON (six: the longest escape of
   * one UTF-16 unit) by at most this many characters, else the run ends as a protocol
   * violation. The runner writes compact JSON; what JSON.parse throws away (whitespace,
   * a key given twice, zeros padding a number) costs the host a parse and the run nothing.
   */
  lineSlackChars: 256,
} as const;

/**
 * Images the code attaches to its result with `show()` (issue 13 §2). They cross the runner ->
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
  /** The host keeps the images of this many recent runs in memory, for the Audit page. */
  cachedRuns: 16,
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
  /** An answer slower than this many times its tool's recent fastest counts as slow. */
  serverLatencyTolerance: 2,
  /** How many recent calls of a tool its fastest is taken from. */
  serverLatencyWindow: 20,
  /** A name the code sent, quoted in a message to it, is cut to this. */
  nameShownMaxChars: 80,
  /**
   * A guessed tool name longer than this gets no "did you mean" suggestions, which bounds the
   * edit-distance work a hostile name can cause.
   */
  suggestMaxNameChars: 100,
  /** The most "did you mean" names offered. */
  suggestionsMax: 3,
  /** Schema errors named in a refusal; the rest are left out. */
  schemaErrorsShownMax: 5,
  /** Where in the arguments a schema error is (its JSON pointer), as quoted in a refusal. */
  argPathShownMaxChars: 80,
  /**
   * An exception's type name is shown to the code only if it is a plain identifier at most
   * this long, so no message text can ride along in it.
   */
  errorTypeNameMaxChars: 60,
  /** A tool name recorded in an event: the whole name unless it is absurdly long. */
  eventNameMaxChars: 200,
  /** A server-chosen label in a tool result (MIME type, URI) is cut to this, on one line. */
  resultLabelMaxChars: 200,
} as const;

/** The tool catalog and the run_python description. */
export const CATALOG_LIMITS = {
  descriptionMaxBytes: 2 * KiB,
  stubTypeDepth: 5,
  paramNameMaxChars: 64,
  /** A schema nested deeper than this is not compiled: the tool is left out. */
  schemaMaxDepth: 32,
  /**
   * In the arguments of a tool whose schema asks for unique items, no array may be longer:
   * ajv compares every pair of items, so the cost grows with the square of the length
   * (unique-items-bound.ts). 512 small objects take ~10 ms to check.
   */
  uniqueItemsArrayMax: 512,
  /**
   * The most characters of the run_python description's tool part (full stubs, else the
   * index of servers and tool names): the model pays for them in every conversation, so they
   * stay few whatever the catalog's size; stubs are looked up from the code.
   */
  defaultDescriptionBudgetChars: 3_000,
  /** Full stubs in the description only up to this many tools; past it, the compact index. */
  fullStubsMaxTools: 10,
  /** search_tools() in the sandbox: results when the code names no limit... */
  searchDefaultResults: 10,
  /** ...and the most it returns whatever limit it names, so a lookup stays small to print. */
  searchMaxResults: 50,
  /** A longer query is cut: its words are matched against every tool, so they are bounded. */
  searchQueryMaxChars: 200,
  /**
   * TOOLS[name].schema in the sandbox: a tool's input schema (as JSON, masked) goes to the
   * runner only up to this size (the stub still lists its parameters)...
   */
  schemaShownMaxBytes: 16 * KiB,
  /** ...and schemas go out only until they reach this total, as every run's start carries them. */
  schemasShownTotalBytes: 1 * MiB,
  // Rendered parameter lists. Schemas come from the wrapped servers and may be hostile (huge
  // enums, thousands of properties, cycles): every piece is bounded, so the cost of rendering
  // is bounded by these caps, not by the size or shape of the schema.
  /** The most characters a whole rendered parameter list may take. */
  paramListMaxChars: 1_000,
  /** The most parameter-name characters a summary line's `name(a, b)` may take. */
  summaryParamsMaxChars: 80,
  /** Enum values shown before `| ...`. */
  enumShownMax: 10,
  /** anyOf/oneOf/allOf/type alternatives shown before `| ...`. */
  unionShownMax: 8,
  /** Characters of one string literal (enum or const value) shown. */
  literalMaxChars: 40,
  /** A summary line keeps the first sentence of the description, cut to this. */
  summarySentenceMaxChars: 160,
  /**
   * A server or tool name quoted in a catalog warning is cut to this, so it cannot flood the
   * user's screen.
   */
  nameShownMaxChars: 100,
  /** An unknown `$schema` value quoted in the reason a tool is left out is cut to this. */
  schemaDialectShownMaxChars: 100,
  /** The reason a tool is left out reaches the user's terminal and may quote the schema. */
  schemaReasonMaxChars: 300,
} as const;

/**
 * Checking arguments against a tool's schema: the schema is the server's, the arguments the
 * sandbox's, so every check must cost a bounded, linear amount.
 */
export const SCHEMA_LIMITS = {
  /** A longer `pattern` leaves its tool out: compiling it could take the host seconds. */
  patternMaxChars: 1_000,
  /**
   * A pattern whose compiled RE2 program is larger leaves its tool out: matching time is the
   * text's length times this, at worst (about 0.2 s on the longest argument string).
   */
  patternProgramMaxSize: 5_000,
  /** A pattern quoted in the reason its tool was left out is cut to this. */
  patternShownMaxChars: 80,
  /**
   * `format` checks that have no linear-time form (ajv-formats' functions and its patterns
   * with lookahead) run on strings up to this long; a longer one is accepted unchecked.
   */
  formatCheckMaxChars: 2_048,
} as const;

/** Secret env values (issue 8 §9). */
export const SECRET_LIMITS = {
  /**
   * A secret at least this long has each of its occurrences replaced by "[secret]" wherever it
   * could show: results, errors and refusals before the code sees them, tool listings, the
   * audit log, the approval panel, the UI. A shorter one is masked nowhere: it would mangle
   * ordinary text (imported env values such as `DEBUG=true` are marked secret by default).
   */
  maskMinChars: 8,
} as const;

/** The warm pool of started, idle containers. */
export const POOL_LIMITS = {
  /** Idle containers kept when runs are quiet (the floor the pool shrinks back to). */
  defaultSize: 2,
  /**
   * Of the idle containers kept while quiet, this many stay lean (no preload imports: ~6 MiB
   * idle instead of ~62 MiB) when the floor is above 1; one preloads whatever the floor. The
   * second run of a burst takes such a spare instead of a cold start.
   */
  leanSpares: 1,
  maxSize: 8,
  /**
   * The most idle containers the pool grows to under demand; the concurrent-runs setting caps
   * it too. Chosen from bench/pool-burst.ts on the 2-core machine (docs/performance.md).
   */
  defaultGrowMax: 4,
  growMaxCeiling: 16,
  /** A take that finds the pool empty in a burst multiplies its target by this (to its ceiling). */
  growthFactor: 2,
  /**
   * Only a take that finds the pool empty within this long after the previous take grows it:
   * an empty pool with no run before is still filling (start, runtime switch), not a burst.
   */
  burstWindowMs: 10_000,
  /** A grown pool with no take for this long halves its target (down to the floor). */
  defaultIdleSeconds: 60,
  minIdleSeconds: 5,
  maxIdleSeconds: 3_600,
  /**
   * A started warm container whose runner has not said ready by then (its preload imports
   * took too long, or it hangs) is removed and replaced. Preloading took ~7 s on a loaded
   * 2-core machine (bench/sandbox-preload.ts) and ~30 s with the docker tests running beside
   * it; this leaves room for slower still.
   */
  readyTimeoutMs: 120_000,
  /**
   * With preloading on, refills started within this long after a take found the pool short of
   * its target (none ready, or earlier refills still under way) skip the preload imports (~0.4 s of CPU each, paid while runs wait for containers); a pool
   * with no take for this long replaces the idle containers started that way with preloading
   * ones. bench/pool-flood-profile.ts and bench/pool-burst.ts measure it.
   */
  leanWindowMs: 10_000,
  /**
   * A catalog change replaces the idle containers staged with another catalog at most this
   * often; changes between collapse into one review when it ends. A wrapped server can make
   * the catalog change at every listing (a tool unlisted, then listed as pinned again, once a
   * second under the relist pacing), and each change used to replace every idle container at
   * once: a container start, and with preloading ~0.4 s of CPU, for each one, every time.
   */
  catalogReviewMinIntervalMs: 10_000,
} as const;

/** The host: queues, sockets and clients. */
export const HOST_LIMITS = {
  /** A run waiting for a free slot longer than this gets a clear "busy" error. */
  runQueueTimeoutMs: 60_000,
  /** A client's self-reported name is cut to this before it keys taint and the audit log. */
  clientNameMaxChars: 200,
  /** A client's self-reported version is cut to this before it goes into the client's view. */
  clientVersionMaxChars: 100,
  /** While Docker is not ready, the host looks for it again this often. */
  dockerPollMs: 10_000,
  /** Largest JSON-RPC body accepted over HTTP (run_python's code is at most 256 KiB). */
  httpBodyMaxBytes: 4 * MiB,
  /** A web page's Origin, quoted in the refusal the audit log records, is cut to this. */
  httpOriginShownMaxChars: 100,
  /** Largest message the host accepts from a browser (a pasted config is the biggest). */
  wsMessageMaxBytes: 2 * MiB,
  /**
   * Browser mode: answers and events a WebSocket may leave unread in the host's memory; past it
   * the socket is closed. Room for a few of the largest answers (API_LIMITS.responseMaxChars).
   */
  wsUnreadMaxBytes: 64 * MiB,
  /** Browser mode: a WebSocket that has not sent its hello (the token) by then is closed. */
  wsHelloTimeoutMs: 10_000,
  /** Refused connections logged one by one per minute; the rest are counted in the next. */
  authRefusalsPerMinute: 30,
  /** The window authRefusalsPerMinute counts over. */
  authRefusalWindowMs: 60_000,
  /**
   * Client connections logged one by one (client_connected, then client_disconnected) per
   * clientEntriesWindowMs; the rest are counted (notLogged) on the next one logged. A client
   * with the token connected and left in a loop ~1,100 times a second, two entries each
   * (~550 KB/s), so the audit's size cap would remove its oldest files within minutes. Far above
   * what real clients do; their runs are logged whatever this says.
   */
  clientEntriesLogged: 100,
  /** The window clientEntriesLogged counts over. */
  clientEntriesWindowMs: 60 * 60_000,
  /**
   * Connections left out of the log are written as a count (clients_not_logged) at the first
   * one left out, then at most this often while more are: the count used to wait for the next
   * one logged or the app's stop, so a crash or a kill lost up to a window's worth of it.
   */
  clientsNotLoggedFlushMs: 60_000,
  /**
   * Connections cut off for leaving too many answers unread (socketUnreadMaxBytes,
   * wsUnreadMaxBytes) logged one by one per cutOffWindowMs; the rest are counted in the next.
   */
  cutOffEntriesLogged: 30,
  /** The window cutOffEntriesLogged counts over. */
  cutOffWindowMs: 60_000,
  /**
   * clients.changed reaches the UI at most once per this (the last change always reaches it):
   * a client connecting and leaving in a loop would send a page of clients per connection.
   */
  clientsChangedMinIntervalMs: 100,
  /** An MCP-over-HTTP session unused this long is closed (HTTP clients can just vanish). */
  httpSessionIdleMs: 30 * 60_000,
  /**
   * MCP-over-HTTP sessions open at once (Streamable HTTP and SSE together); a new one past it
   * is refused (503) until one closes or goes idle. Each holds an MCP server object (~70 KB):
   * unbounded, a client sending initialize in a loop grew the host by ~12 MB a second, kept
   * for the idle time, until it ran out of memory.
   */
  httpSessionsMax: 100,
  /**
   * TCP connections each loopback HTTP server (MCP over HTTP, the browser UI) holds at once; past
   * it the oldest that showed no token is closed (ConnectionCap: closing the one that comes let a
   * flood lock the real client out). Any local user can connect to 127.0.0.1, token or not, and
   * an idle connection was kept until the headers timeout: a loop of them took one descriptor
   * each until the host had none left for the audit log, the local socket or Docker.
   */
  httpConnectionsMax: 1024,
  /**
   * Times a loopback HTTP server's connection cap was reached that are logged per
   * connectionCapWindowMs (connections_capped, then connections_uncapped when it clears); the
   * rest are counted, with the connections they refused, in the next one logged. A process
   * holding the cap and letting one connection go in a loop would otherwise log each turn.
   */
  connectionCapEpisodesLogged: 5,
  /** The window connectionCapEpisodesLogged counts over. */
  connectionCapWindowMs: 60_000,
  /** While the audit log cannot be written (runs refused), how often writing is tried again. */
  auditProbeMs: 5_000,
  /** How often idle HTTP sessions are looked for. */
  httpSessionSweepMs: 60_000,
  /** Longest JSON-RPC line accepted from a shim (the same bound as an HTTP body). */
  socketMessageMaxBytes: 4 * MiB,
  /**
   * Answers a shim's connection may leave unread in the host's memory; past it the connection
   * is closed. Above the largest answer (a run's result with its images, ~3 MB in base64).
   */
  socketUnreadMaxBytes: 16 * MiB,
  /** An unknown tool name a client sent to run_python, as quoted back in the error. */
  unknownToolShownMaxChars: 64,
  /** While a run goes, a request that carries a progressToken gets progress this often. */
  runProgressIntervalMs: 5_000,
  /**
   * How long MCP clients built on the SDK wait for a request by default: a run longer than
   * this needs a client that waits longer or resets its timeout on progress.
   */
  clientDefaultTimeoutSeconds: 60,
  /** Browser mode: a link to download the audit export works once, within this time. */
  exportLinkTtlMs: 60_000,
  /** Browser mode: export links not yet used; asking for one more drops the oldest. */
  exportLinksMax: 8,
  /**
   * Browser mode: a link that opens the UI (`/#ticket=...`) works once, within this time. It
   * reaches the browser through process arguments, which every user of the machine can read.
   */
  uiTicketTtlMs: 60_000,
  /** Browser mode: UI links not yet used; one more drops the oldest. */
  uiTicketsMax: 8,
  /** Browser mode: pages signed in with a link, until the host stops; one more ends the oldest. */
  uiSessionsMax: 64,
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
   * Above what a full page of audit.query (AUDIT_LIMITS.queryPageMaxChars plus one entry) or
   * one run's detail (its audit bytes are capped by RUN_COST_LIMITS.auditBytesPerRun) takes.
   */
  responseMaxChars: 16 * MiB,
  /** servers.tools: the most tools one page may be asked for (and the default). */
  toolsPageMaxLimit: 1000,
  /**
   * servers.tools: a page also ends once its tools pass this size as JSON, so a server's long
   * list reaches the UI in pages, each well under responseMaxChars (unless one tool alone is).
   */
  toolsPageMaxChars: 4 * MiB,
  /**
   * servers.list (and every answer or servers.changed event carrying the server list): the
   * most servers one page may hold (and the default). A page also ends past listPageMaxChars.
   */
  serversPageMaxLimit: 100,
  /** clients.list and the clients.changed event: the most connected clients one page holds. */
  clientsPageMaxLimit: 100,
  /** taint.list, taint.reset and the taint.changed event: the most records one page holds. */
  taintPageMaxLimit: 100,
  /**
   * servers.list, clients.list, taint.list: a page also ends once its items pass this size as
   * JSON (a server's args and stderr tail can be long), well under responseMaxChars.
   */
  listPageMaxChars: 4 * MiB,
  /** servers.held: the most held tools one page may be asked for (and the default). */
  heldPageMaxLimit: 200,
  /** servers.held: a page also ends once its held tools (two definitions each) pass this. */
  heldPageMaxChars: 4 * MiB,
  /**
   * servers.review: the most held tools one request reviews (well under a browser message with
   * names at toolNameMaxChars); the UI's "Accept all" sends more in several requests.
   */
  reviewMaxTools: 1000,
} as const;

/** The audit log. */
export const AUDIT_LIMITS = {
  /**
   * `code` of run_started is cut to this, its start and its end kept and the middle taken out;
   * codeBytes and codeHash still cover all of it.
   */
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
  /** Past this total size of the audit files, the oldest files are removed (never the newest). */
  defaultMaxTotalBytes: 256 * MiB,
  /** Entries queued while a sync is in flight are written together, up to this many bytes. */
  batchMaxBytes: 1 * MiB,
  /** How far a timestamp may go back before verify calls the order into question. */
  clockSkewMs: 60_000,
  queryDefaultLimit: 100,
  queryMaxLimit: 1000,
  /** Chunk size for reading files from the end. */
  readChunkBytes: 256 * KiB,
  /** `codemode audit tail`: entries printed when -n is not given. */
  tailDefaultEntries: 20,
  /** `codemode audit tail`: how often it looks for new entries while following. */
  tailPollMs: 500,
  /** The head is written outside the log at most this often (and at close, and before retention). */
  checkpointIntervalMs: 1000,
  /** A checkpoint file larger than this is not read (it holds four short fields). */
  checkpointMaxBytes: 4 * KiB,
  /** The HMAC key that signs checkpoints (kept in the OS keychain). */
  checkpointKeyBytes: 32,
  /**
   * At start, runs started this long before the log's newest entry (or later) with no end are
   * written off as `run_abandoned`: far over the longest run (a 90 s deadline, a 60 s wait in
   * the queue), so a run in flight at a crash is always inside it.
   */
  abandonedScanWindowMs: 10 * 60_000,
  /** ...and at most this many of the newest entries are read for it, whatever their times. */
  abandonedScanMaxEntries: 100_000,
  /** The index reads the log forward in chunks of this size when it builds or catches up. */
  indexReadChunkBytes: 1 * MiB,
  /** The newest file's index is saved beside the log after this many new entries (and at close). */
  indexSaveEveryEntries: 10_000,
  /** Entries per block of the index's text filter (a search skips blocks that cannot match)... */
  indexTextBlockEntries: 128,
  /** ...and the bits of each block's filter (a power of two). */
  indexTextBlockBits: 8192,
  /** The build at host start lets other work run after each this many entries it indexes. */
  indexBuildYieldEntries: 256,
  /** Verify reads the log in chunks of this size. */
  verifyReadChunkBytes: 4 * MiB,
  /** Verify reports its progress at most this often. */
  verifyProgressMs: 200,
  /**
   * A page of audit.query ends once its entries pass this many characters as JSON (or at its
   * limit): 1,000 entries with 16 KiB of code each would not fit one API answer.
   */
  queryPageMaxChars: 4 * MiB,
} as const;

/**
 * Local access: the socket (or pipe), its handshake, the token and lock files, and the shim
 * that MCP clients start. The names and wire values are in local-access-constants.ts.
 */
export const LOCAL_ACCESS_LIMITS = {
  /**
   * Unix socket paths are capped near 104 bytes (sun_path: 104 on macOS, 108 on Linux);
   * past this many bytes we use a short fallback directory instead.
   */
  socketPathMaxBytes: 100,
  /** Hex characters of sha256(dataDir) that name the fallback directory and the pipe. */
  dataDirHashChars: 12,
  /** Random bytes in the install's token (written as hex). */
  tokenBytes: 32,
  /** Random bytes in the install's id (written as hex), which labels its sandbox containers. */
  installIdBytes: 16,
  /** Each handshake line the host reads (the shim's HELLO and PROOF), newline included. */
  handshakeMaxBytes: 200,
  /** A client that has not finished its handshake line by then is refused. */
  handshakeTimeoutMs: 5_000,
  /**
   * Connections open on the socket at once, handshaking or connected. Each connected one holds
   * an MCP session (~70 KB); past this a new one is refused with an `ERR` line, so a client that
   * holds the token and connects in a loop cannot grow the host until it runs out of memory
   * (the HTTP transport's sessions have the same kind of cap, HOST_LIMITS.httpSessionsMax).
   */
  connectionsMax: 256,
  /** Each handshake line the shim reads (the host's PROOF, `OK` or `ERR <reason>`). */
  handshakeReplyMaxBytes: 200,
  /** Random bytes of each side's challenge-response nonce (written as hex). */
  handshakeNonceBytes: 32,
  /** How long a start-up check waits for an existing socket to accept a connection. */
  socketProbeTimeoutMs: 1_000,
  /**
   * A token or lock file found empty is re-read for this long before it is judged damaged or
   * stale: a concurrent starter may be between its O_EXCL create and its write.
   */
  emptyFileSettleMs: 1_000,
  /** Pause between those re-reads: short, since the other starter's write is imminent. */
  emptyFileRetryMs: 20,
  /**
   * Removing a lock (a stale one, or our own on release) goes through a gate, one remover at a
   * time (remove-if-unchanged.ts). A turn in it takes milliseconds; a gate older than this was
   * left by a remover that died, and is cleared.
   */
  lockGateStaleMs: 5_000,
  /** Pause between attempts to enter a gate another remover holds. */
  lockGateRetryMs: 10,
  /** Shim: pause between connection attempts while the app starts. */
  shimRetryIntervalMs: 200,
  /** Shim: how long it waits for the app to come up after trying to start it. */
  shimStartWaitMs: 10_000,
  /** Shim, app not running: the longest first line (the client's `initialize`) it reads. */
  shimFirstLineMaxBytes: 1 * MiB,
  /** Shim, app not running: how long it waits for that first line. */
  shimFirstLineWaitMs: 5_000,
  /**
   * Shim: longest line (either way) it reads the JSON-RPC `id` of, to answer requests in
   * flight itself if the app goes away; longer lines pass through untracked. The same bound
   * as the host's socketMessageMaxBytes.
   */
  shimTrackedLineMaxBytes: 4 * MiB,
  /** Shim: most unanswered request ids it remembers; later ones pass through untracked. */
  shimTrackedRequestsMax: 10_000,
  /** Shim, app gone: first pause between attempts to reconnect... */
  shimReconnectBackoffInitialMs: 200,
  /** ...doubling after each failed attempt, up to this. */
  shimReconnectBackoffMaxMs: 5_000,
  /** Shim, app gone: it stops trying after this long, answers what waits and exits 1. */
  shimReconnectGiveUpMs: 10 * 60_000,
  /** Shim, app gone: how long a request the client sends meanwhile waits for it to be back. */
  shimReconnectRequestWaitMs: 20_000,
  /** Shim, app gone: most bytes of the client's lines it holds until it is back. */
  shimReconnectQueueMaxBytes: 16 * MiB,
  /** Shim, app back: how long it waits for the answer to the `initialize` it replays. */
  shimReplayWaitMs: 10_000,
  /** Shim: most times it starts again the app it started itself, over its whole life. */
  shimAppRestartsMax: 3,
} as const;

/** File modes; enforced on Unix only (Windows has no mode bits; the pipe is guarded by the token). */
export const LOCAL_ACCESS_MODES = {
  socketDir: 0o700,
  socket: 0o600,
  tokenFile: 0o600,
  lockFile: 0o600,
  dataDir: 0o700,
} as const;

/** Each wrapped MCP server: its start, its restarts and what is kept of its stderr. */
export const SERVER_LIMITS = {
  /**
   * A server's re-listings after notifications/tools/list_changed start at least this far
   * apart (and ten times as far as the last one took, when longer); a burst collapses into the
   * next. A server answering each listing with another list_changed kept the host's thread
   * ~76% busy (188 listings a second of 100 tools: parse, pins, pin file save, catalog).
   */
  relistMinIntervalMs: 1_000,
  /** The pace of re-listings after a slow one: its duration times this. */
  relistPaceFactor: 10,
  /**
   * A server's messages (notifications, answers, anything) are metered as a bucket: it may send
   * messagesBurstMax at once, and messagesPerSecondMax a second for as long as it likes. One
   * past that is stopped as broken, and restarted after its backoff: each message costs the host
   * a parse (~12 µs), and a server writing notifications as fast as its pipe took them kept the
   * host's thread ~100% busy. The burst lets an honest server log a few thousand lines as it
   * starts (counted per second alone, one was stopped at every start); a bigger one would let
   * each flood, between restarts, cost the host that many parses more. Far above what a real
   * server sends.
   */
  messagesBurstMax: 5_000,
  /** ...and the rate the bucket refills at. */
  messagesPerSecondMax: 2_000,
  /**
   * A server that writes more than this to its stdout within outputBytesWindowMs is stopped the
   * same way: a server writing 9 MB lines without end kept the host's thread ~90% busy under
   * any message count. Room for a listing of 10,000 tools with large schemas.
   */
  outputBytesPerWindowMax: 64 * MiB,
  /** The window outputBytesPerWindowMax counts over. */
  outputBytesWindowMs: 10_000,
  /**
   * A server that leaves more than this of the host's messages to it unread (its stdin) is
   * stopped the same way. The SDK's client answers every request a server sends (ping at
   * least), echoing the id the server chose: a server sending pings with 1 MB ids and reading
   * nothing had the host hold 1 MB per ping, without bound. Far above what a server that reads
   * is ever sent at once (calls of at most BRIDGE_LIMITS.argsMaxBytes, a few dozen at a time).
   */
  inputUnreadMaxBytes: 16 * MiB,
  /** First automatic restart waits this long after a crash... */
  restartBackoffInitialMs: 500,
  /** ...doubling after every failed attempt, up to this. */
  restartBackoffMaxMs: 30_000,
  /** A server that stayed up this long since its last start gets the short delay again. */
  restartBackoffResetAfterMs: 60_000,
  /** Last stderr lines kept per process, for "failed with the last lines of its stderr". */
  stderrTailLines: 40,
  /** A longer stderr line is cut, so a server writing without newlines cannot grow the tail. */
  stderrLineMaxChars: 1_000,
  /**
   * Bound on `initialize` and each `tools/list` page while starting. Generous because a
   * first start through a package runner may download the server.
   */
  startTimeoutMs: 60_000,
  /**
   * At the app's start, how long the host waits for its servers before it takes clients: those
   * up by then are in the first `tools/list`, the others join when ready (list_changed). A shim
   * that starts the app waits LOCAL_ACCESS_LIMITS.shimStartWaitMs (10 s) for it: waiting for
   * every server (a first `npx` download, one that never answers) made the client fail.
   */
  startupWaitMs: 5_000,
  /** A server that paginates `tools/list` past this many pages is treated as broken. */
  toolListMaxPages: 100,
  /**
   * A server listing more tools than this (all pages together) is treated as broken: a
   * hostile one listing hundreds of thousands would grow the host's memory and the pin file
   * (which stops storing at PIN_LIMITS.storedMaxBytes).
   */
  toolsMaxPerServer: 10_000,
  /**
   * Why a server is not running, as the model reads it in the run_python description and in
   * the ToolError a call to one of its tools raises: one line cut to this many characters.
   */
  downReasonMaxChars: 300,
  /**
   * A call waiting for a restart gives up this long before its timeout: the bridge's own timer
   * of the same length would otherwise end it first as a bare timeout, and the server's last
   * error (what the user needs) would never reach the log.
   */
  restartWaitReserveMs: 250,
  /**
   * Stopping a server (the app stopping, a server removed, changed or restarted, the end of a
   * Try it): its stdin is closed and it gets this long to leave by itself...
   */
  stopStdinGraceMs: 2_000,
  /**
   * ...then its whole process tree gets SIGTERM and this long, then SIGKILL. A server that
   * ignores both, or a child of it holding its pipes, held the app's stop for as long as it
   * liked (a `sleep 60` in a server kept a SIGTERM'd daemon up ~70 s).
   */
  stopTermGraceMs: 2_000,
} as const;

/** The `mcpServers` config file. */
export const CONFIG_LIMITS = {
  /**
   * A real config nests four levels (file, mcpServers, entry, env/args). The cap keeps the
   * recursive duplicate-key scan far from the stack limit on hostile or broken input.
   */
  maxNesting: 64,
} as const;

/** Talking to the Docker engine. */
export const DOCKER_LIMITS = {
  /** An engine that does not answer its version request within this is taken as not running. */
  versionTimeoutMs: 5_000,
  /**
   * While the engine answers, it is pinged this often: a socket removed under a live
   * connection, or an engine that went away without ending its event stream, is noticed
   * within this plus one failed ping (well inside 2 s).
   */
  heartbeatMs: 1_000,
  /** After Docker was lost, the first try to reach it again waits this long... */
  reconnectFirstMs: 250,
  /** ...each next try twice as long as the one before, up to this. */
  reconnectMaxMs: 5_000,
  /**
   * A run's failed connection is taken as an outage only if a ping fails too; a ping that has
   * not answered within this is left to the heartbeat rather than taken as a loss.
   */
  confirmLossPingMs: 1_000,
  /** Distinct client names kept in the one entry that counts runs refused while it was away. */
  refusedClientsShown: 5,
  /**
   * A container removal the engine itself failed (HTTP 500) is tried again after each of these
   * waits: Docker fails a forced removal that races the container's own exit ("cannot remove -
   * Container … is not running") and keeps the container, which a try a moment later removes.
   */
  removeRetryDelaysMs: [100, 500, 2_000],
} as const;

/**
 * What one run may cost the host, whatever its code does: every bound here ends the run
 * rather than letting it write on, so the audit log and the disk grow by a bounded amount.
 */
export const RUN_COST_LIMITS = {
  /**
   * Calls refused for a spent budget before the run is stopped (`call_budget`). A few, so a
   * loop that catches ToolError and checks for "budget" can still finish cleanly.
   */
  refusalsPastBudget: 10,
  /** Distinct tool names kept in the one entry that counts a run's calls not logged singly. */
  notLoggedToolsShown: 5,
  /**
   * Messages one run may send (output chunks, empty ones included, and calls): past this the
   * run is stopped (`message_limit`). Each costs the host a parse however small it is.
   */
  messagesPerRun: 100_000,
  /**
   * Bytes of audit entries one run may write (its start and its calls, as the log writes them).
   * A call goes out only with room for its entry at its largest set aside; once there is none
   * its calls are refused before going out, counted, not logged, and the run is stopped
   * (`audit_limit`). Its end is always logged.
   */
  auditBytesPerRun: 8 * MiB,
  /** What the log adds to each entry (`seq`, `ts`, `prev`, newline), counted toward auditBytesPerRun. */
  auditEntryHeaderBytes: 128,
} as const;

/** The catalog of well-known servers shipped with the app, and the values a user gives it. */
export const SERVER_CATALOG_LIMITS = {
  /** The shipped catalog holds at least this many entries (the promise). */
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
} as const;

/** "Try it": start a server once with the user's settings, list its tools, stop it. */
export const TRY_SERVER_LIMITS = {
  /**
   * Bound on the whole try (start + listing). As generous as a real start, since a first
   * start through npx, uvx or docker may download the server.
   */
  timeoutMs: 60_000,
  /** Tries running at once in one host; each is a child process. */
  concurrentMax: 2,
  /** A tool description shown in the result is cut to this. */
  descriptionMaxChars: 300,
  /** Tools listed in the result; the count still covers all of them. */
  toolsShownMax: 200,
} as const;

/** The PATH wrapped servers start with, read from the user's login shell at start. */
export const SERVER_PATH_LIMITS = {
  /**
   * The login shell (`$SHELL -ilc`) must print its PATH within this; a slow profile (nvm,
   * conda) takes a second or two. Past it the host goes on with the usual locations.
   */
  loginShellTimeoutMs: 5_000,
  /** What is kept of the login shell's output: a profile that prints without end is cut. */
  loginShellOutputMaxChars: 256 * KiB,
  /** PATH entries kept after merging; more is a broken profile, not a real setup. */
  maxEntries: 256,
} as const;

/**
 * MCP Bundles (.mcpb): a zip from anywhere, unpacked into the data directory. Every number
 * here bounds what a hostile bundle can make the host read, inflate or write.
 */
export const MCPB_LIMITS = {
  /** A .mcpb file as read from disk (`servers add --from-mcpb`). */
  bundleMaxBytes: 64 * MiB,
  /**
   * A bundle sent by the UI through the API: it travels base64 in one API message, which
   * in browser mode must fit HOST_LIMITS.wsMessageMaxBytes. Bigger bundles go through the CLI.
   */
  uploadMaxBytes: 1 * MiB,
  /** Files and folders in one bundle. */
  entriesMax: 10_000,
  /** All files of a bundle once unpacked, counted as they are inflated (not as declared). */
  unpackedMaxBytes: 256 * MiB,
  /** One path inside the bundle. */
  entryNameMaxChars: 1_024,
  /** manifest.json, read before anything is unpacked. */
  manifestMaxBytes: 1 * MiB,
  /** `user_config` options one manifest may declare. */
  userConfigMax: 64,
  /** Characters of an archive entry's name quoted in an error (the name may be far longer). */
  entryNameShownChars: 200,
  /** Problems of a refused manifest listed in its error; the first ones say enough. */
  manifestProblemsShown: 5,
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
} as const;

/** The container engine the user chose (Sandbox page, `codemode engine use`, `--engine`). */
export const ENGINE_LIMITS = {
  /** A chosen engine's name or URL is at most this long (the settings check and the UI). */
  choiceMaxChars: 500,
} as const;

/** The log of an app the shim started (its stdout and stderr), in the data directory. */
export const APP_LOG_LIMITS = {
  /** Past this size the log is rotated: when the shim starts the app, and while it runs. */
  maxBytes: 1 * MiB,
  /** Files kept: app.log and app.log.1 up to app.log.(files - 1), the oldest dropped. */
  files: 3,
  /** How often a running app started by the shim checks the size of its log. */
  checkIntervalMs: 60_000,
  /** The last line of the log quoted in the shim's "not running" message is cut to this. */
  lastLineMaxChars: 300,
} as const;

/** "Ask first" calls waiting for the user (issue 12). */
export const APPROVAL_LIMITS = {
  /** Requests waiting at once, across all runs; past it a call is denied without asking. */
  pendingMax: 64,
  /**
   * The arguments as the panel shows them: pretty JSON up to this many characters, else compact
   * JSON, whole (argsShownWholeMaxChars).
   */
  argsShownMaxChars: 4 * KiB,
  /**
   * Compact JSON of arguments too long to show pretty is shown whole up to this: three times
   * BRIDGE_LIMITS.argsMaxBytes, room for the code points shown as escapes (an escape is at most
   * three times its code point's UTF-8 bytes; a "[secret]" mark is no longer than a secret). A
   * call's arguments never pass it, so the user never allows a call whose arguments were cut
   * out of sight.
   */
  argsShownWholeMaxChars: 48 * KiB,
  /** The run's code as the panel shows it (collapsed) is cut to this. */
  codeShownMaxChars: 16 * KiB,
  /** The question sent to a client by MCP elicitation is cut to this. */
  elicitMessageMaxChars: 2 * KiB,
  /** A request id (a UUID) as the API accepts it. */
  idMaxChars: 64,
} as const;

/** The review of held tool definitions in the UI (issue 12 §2): what its line diff compares. */
export const REVIEW_DIFF_LIMITS = {
  /** A side longer than this is not compared line by line: both are shown whole. */
  linesMax: 5_000,
  /**
   * The comparison table (changed lines before × after, past the common start and end) is
   * at most this many cells (4 bytes each): more, and both sides are shown whole.
   */
  cellsMax: 1_000_000,
} as const;

/** Pinned tool definitions (issue 12 §2): what the pin store keeps of each server's tools. */
export const PIN_LIMITS = {
  /**
   * A pinned definition (canonical JSON) longer than this is kept as its hash only: a change
   * is still held, the review just cannot show the old side.
   */
  definitionMaxChars: 64 * KiB,
  /** Past this many characters of kept definitions per server, further ones keep their hash only. */
  definitionsMaxCharsPerServer: 4 * MiB,
  /** A pin file larger than this is not read (kept aside and reported, like a corrupt one). */
  fileMaxBytes: 64 * MiB,
  /**
   * The pins of all servers together are kept below this (as saved), well under fileMaxBytes,
   * so many hostile servers cannot grow the file past what it can read back: a listing whose
   * new entries would not fit is held out of the catalog without being stored.
   */
  storedMaxBytes: 48 * MiB,
  /**
   * Canonical form (sorted keys) stops this deep: a deeper part is hashed as its plain JSON
   * text, so the work stays bounded on a hostile definition and a change there still counts.
   */
  canonicalMaxDepth: 256,
  /** `serve` names at most this many held tools on stderr at once, then a count. */
  serveHeldShownMax: 20,
  /**
   * A server's held definitions logged one by one (a tool_held entry each) per
   * heldLogWindowMs; the rest are counted in the next entry logged. A server can list 10,000
   * new tools after every list_changed it sends: unbounded, that filled the audit log until its
   * size cap removed the oldest files. Far above what an upgrade of a real server changes.
   */
  heldLoggedPerServer: 500,
  /** The window heldLoggedPerServer counts over. */
  heldLogWindowMs: 60 * 60_000,
  /**
   * How often a running host or `serve` looks at its pin file for changes another process
   * (`codemode servers accept`) made.
   */
  watchIntervalMs: 500,
  /**
   * A process changing the pin file (a host saving, `codemode servers accept|reject`) holds
   * `FILE.lock` meanwhile; another waits for it this long at most, then fails with an error
   * naming the lock.
   */
  lockWaitMs: 10_000,
  /** How often a waiting process looks at the lock again. */
  lockRetryMs: 25,
  /**
   * A lock older than this is taken over even when its pid looks alive (a reused pid after a
   * crash, another machine's pid on a shared disk). No holder keeps it nearly this long: it
   * reads, changes and writes one file.
   */
  lockStaleMs: 60_000,
  /**
   * A lock found empty or unreadable whose file is older than this is taken over: its taker
   * died between creating it and writing its content, which a live taker does at once.
   */
  lockDamagedGraceMs: 2_000,
  /**
   * A lock taken where its pid cannot be looked up (another pid namespace, host or boot, or a
   * lock of an older version) is taken over past this age: shorter than lockWaitMs, so a
   * writer kept out by one a crash left gets through, and far longer than a holder keeps it.
   */
  lockElsewhereStaleMs: 5_000,
  /**
   * Reviews the CLI made, noted beside the pin file for the host's audit (`FILE.reviews`):
   * a host reads at most this many bytes of notes; past them it records one line saying so.
   */
  reviewNotesMaxBytes: 1 * MiB,
} as const;
