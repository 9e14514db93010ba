// Every name and wire value of local access (socket, token, lock, handshake, shim) lives here,
// so the host, the shim and the tests can never disagree about one. The limits and file modes
// more than one layer uses are in shared/limits.ts (LOCAL_ACCESS_LIMITS, LOCAL_ACCESS_MODES);
// the others beside the module that uses each.

export const LOCAL_ACCESS_NAMES = {
  tokenFile: "token",
  lockFile: "host.lock",
  socketDir: "run",
  socketFile: "codemode.sock",
  /** Prefix of the fallback directory and of the Windows pipe name. */
  prefix: "codemode",
} as const;

/** The handshake's wire words (see handshake.ts): two lines each way before any MCP byte. */
export const HANDSHAKE = {
  /** Starts every challenge-response line; a new version of it gets a new word. */
  version: "CODEMODE/2",
  hello: "HELLO",
  proof: "PROOF",
  ok: "OK",
  err: "ERR",
  /** Ends a hello that asks for a link to the browser UI instead of MCP. */
  uiLink: "UI-LINK",
  /** Starts the host's answer to it: `LINK <url>`. */
  link: "LINK",
  /** What shims before the challenge-response sent, followed by the token itself. */
  legacyHello: "CODEMODE",
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

/** JSON-RPC error code the shim answers requests in flight with when Code Mode goes away. */
export const SHIM_STOPPED_CODE = -32000;
