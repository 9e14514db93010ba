// Every number and name of local access (socket, token, lock, handshake, shim) lives here,
// so the host, the shim and the tests can never disagree about one.

const MiB = 1024 * 1024;

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
  /** The whole handshake line `CODEMODE <token>\n`, newline included. */
  handshakeMaxBytes: 200,
  /** A client that has not finished its handshake line by then is refused. */
  handshakeTimeoutMs: 5_000,
  /** The server's answer to a handshake (`OK\n` or `ERR <reason>\n`). */
  handshakeReplyMaxBytes: 200,
  /** How long a start-up check waits for an existing socket to accept a connection. */
  socketProbeTimeoutMs: 1_000,
  /**
   * A token or lock file found empty is re-read for this long before it is judged damaged or
   * stale: a concurrent starter may be between its O_EXCL create and its write.
   */
  emptyFileSettleMs: 1_000,
  /** Shim: pause between connection attempts while the app starts. */
  shimRetryIntervalMs: 200,
  /** Shim: how long it waits for the app to come up after trying to start it. */
  shimStartWaitMs: 10_000,
  /** Shim, app not running: the longest first line (the client's `initialize`) it reads. */
  shimFirstLineMaxBytes: 1 * MiB,
  /** Shim, app not running: how long it waits for that first line. */
  shimFirstLineWaitMs: 5_000,
} as const;

/** File modes; enforced on Unix only (Windows has no mode bits; the pipe is guarded by the token). */
export const LOCAL_ACCESS_MODES = {
  socketDir: 0o700,
  socket: 0o600,
  tokenFile: 0o600,
  lockFile: 0o600,
  dataDir: 0o700,
} as const;

export const LOCAL_ACCESS_NAMES = {
  tokenFile: "token",
  lockFile: "host.lock",
  socketDir: "run",
  socketFile: "codemode.sock",
  /** Prefix of the fallback directory and of the Windows pipe name. */
  prefix: "codemode",
} as const;

/** The handshake wire format: one line each way before any MCP byte. */
export const HANDSHAKE = {
  hello: "CODEMODE",
  ok: "OK",
  err: "ERR",
} as const;

/** Shim exit statuses. */
export const SHIM_EXIT = {
  ok: 0,
  /** The host refused us, the token file is unusable, or the connection broke. */
  failed: 1,
  /** No host to talk to, even after trying to start one. */
  notRunning: 2,
} as const;

/** JSON-RPC error code the shim answers `initialize` with when Code Mode is not running. */
export const SHIM_NOT_RUNNING_CODE = -32000;
