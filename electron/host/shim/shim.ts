// The stdio <-> socket byte pipe MCP clients start. It must start fast and stay dumb: it
// imports only Node built-ins, the local-access modules, shared/limits.ts and a few small
// helpers of util/, and parses no MCP except the first line in the one case where there is no
// host to give it to.
// Its handshake is in shim-handshake.ts, how it starts the app in start-app.ts, how it keeps
// the client's session when the app goes away in shim-session.ts.

import net from "node:net";
import type { Readable, Writable } from "node:stream";
import { readLine, type HelloPurpose } from "../ingress/local-access/handshake.js";
import { terminalText } from "../util/terminal-text.js";
import { checkDataDirTrust } from "../ingress/local-access/data-dir-trust.js";
import {
  LOCAL_ACCESS_NAMES,
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
} from "../ingress/local-access/local-access-constants.js";
import {
  socketLocationFor,
  socketProblem,
  type SocketLocation,
} from "../ingress/local-access/socket-path.js";
import { TokenError, readToken } from "../ingress/local-access/token.js";
import { challenge } from "./shim-handshake.js";
import { lastLogLine } from "../ingress/local-access/app-log.js";
import { defaultStartApp, type StartApp, type StartOutcome } from "./start-app.js";
import { runSession, type Attempt, type ReconnectLimits } from "./shim-session.js";
import { isId, parseObject } from "./in-flight.js";
import { MiB } from "../util/units.js";

/** Shim: pause between connection attempts while the app starts. */
export const SHIM_RETRY_INTERVAL_MS = 200;

/** Shim: how long it waits for the app to come up after trying to start it. */
export const SHIM_START_WAIT_MS = 10_000;

/** Shim, app not running: the longest first line (the client's `initialize`) it reads. */
export const SHIM_FIRST_LINE_MAX_BYTES = 1 * MiB;

/** Shim, app not running: how long it waits for that first line. */
export const SHIM_FIRST_LINE_WAIT_MS = 5_000;

/** Shim: most times it starts again the app it started itself, over its whole life. */
export const SHIM_APP_RESTARTS_MAX = 3;

export interface ShimOptions {
  dataDir: string;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  connect?: (socketPath: string) => net.Socket;
  startApp?: StartApp;
  /** How long to keep trying to connect after starting the app. */
  timeoutMs?: number;
  retryIntervalMs?: number;
  /** App not running: how long to wait for the client's first line before giving up on it. */
  firstLineWaitMs?: number;
  /** App gone mid-session: how the shim waits for it (tests lower them). */
  reconnect?: Partial<ReconnectLimits>;
}

export const NOT_RUNNING_HELP =
  "Open the Code Mode app, or run `npx codemode daemon`, then restart this MCP server.";

export async function runShim(options: ShimOptions): Promise<number> {
  const { dataDir, env, stderr } = options;
  const location = socketLocationFor(dataDir, env);
  const connect = options.connect ?? ((target: string) => net.createConnection(target));

  let result = await attempt(dataDir, location, connect);
  let started: StartOutcome | undefined;
  if (result.kind === "absent") {
    try {
      const outcome = await (options.startApp ?? defaultStartApp)({ dataDir, env });
      started =
        typeof outcome === "string" ? { started: outcome, tried: [], logFile: null } : outcome;
    } catch (error) {
      stderr.write(`codemode shim: could not start Code Mode: ${errorText(error)}\n`);
    }
    if (started?.started != null) {
      stderr.write(
        `codemode shim: Code Mode is not running; starting it (${started.started})` +
          (started.logFile === null ? "" : `; its output goes to ${started.logFile}`) +
          "\n",
      );
    }
    const deadline = Date.now() + (options.timeoutMs ?? SHIM_START_WAIT_MS);
    const interval = options.retryIntervalMs ?? SHIM_RETRY_INTERVAL_MS;
    while (result.kind === "absent" && Date.now() < deadline) {
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
      result = await attempt(dataDir, location, connect);
    }
  }
  switch (result.kind) {
    case "connected":
      return runSession(result.socket, {
        ...options,
        reconnect: reconnector(options, location, connect, started),
        limits: options.reconnect,
      });
    case "failed":
      // The message may carry a reason whatever listens on the socket chose (an impostor's "ERR
      // <text>"): escaped, it cannot act on the terminal (OSC 52 clipboard writes, fake lines).
      stderr.write(`codemode shim: ${terminalText(result.message)}\n`);
      return SHIM_EXIT.failed;
    case "absent":
      return notRunning(options, started);
  }
}

/**
 * One try at a new connection after the app went away. The shim starts the app again only when it
 * was the shim that started it (a user's own app or daemon may have been quit on purpose: the shim
 * waits for it instead), again only when its last start in this outage has had its time to come up
 * (the old app may still have held the lock), and at most SHIM_APP_RESTARTS_MAX times in its life.
 */
function reconnector(
  options: ShimOptions,
  location: SocketLocation,
  connect: (socketPath: string) => net.Socket,
  started: StartOutcome | undefined,
): (attempt: number) => Promise<Attempt> {
  const { dataDir, env, stderr } = options;
  const startWaitMs = options.timeoutMs ?? SHIM_START_WAIT_MS;
  let restarts = 0;
  let lastStart = 0;
  return async (n) => {
    // A new outage: whatever the shim started before came up (it connected).
    if (n === 0) lastStart = 0;
    const result = await attempt(dataDir, location, connect);
    if (result.kind !== "absent" || started?.started == null) return result;
    if (restarts >= SHIM_APP_RESTARTS_MAX) return result;
    if (Date.now() - lastStart < startWaitMs) return result;
    restarts++;
    lastStart = Date.now();
    try {
      await (options.startApp ?? defaultStartApp)({ dataDir, env });
      stderr.write(
        `codemode shim: starting Code Mode again (${started.started}; ` +
          `${restarts} of at most ${SHIM_APP_RESTARTS_MAX} restarts)\n`,
      );
    } catch (error) {
      stderr.write(`codemode shim: could not start Code Mode again: ${errorText(error)}\n`);
    }
    return result;
  };
}

/**
 * One try at a connection to the running host, checked (socket, token file) and proved both
 * ways; for MCP (the shim) or for a link to the browser UI (`codemode ui open`).
 */
export async function attempt(
  dataDir: string,
  location: SocketLocation,
  connect: (socketPath: string) => net.Socket,
  purpose: HelloPurpose = "mcp",
): Promise<Attempt> {
  const socketPath = location.socketPath;
  // Checked again before every attempt: in a shared place (the /tmp fallback) another user
  // may make the directory or the socket while we wait for the app to start.
  const unsafe = await socketProblem(location);
  if (unsafe !== null) {
    return {
      kind: "failed",
      message: `will not connect to ${socketPath}: ${unsafe}. It is not Code Mode's; remove it (or ask whoever made it), then start Code Mode again.`,
    };
  }
  let token: string;
  try {
    // A token another user could have written would let them pose as the host.
    await checkDataDirTrust(dataDir, [LOCAL_ACCESS_NAMES.tokenFile]);
    token = await readToken(dataDir);
  } catch (error) {
    // The host writes the token before it listens: no token means no host yet.
    if (error instanceof TokenError && error.code === "missing") return { kind: "absent" };
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "absent" };
    return { kind: "failed", message: errorText(error) };
  }
  const socket = connect(socketPath);
  const connectError = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    socket.once("connect", () => resolve(undefined));
    socket.once("error", resolve);
  });
  if (connectError) {
    socket.destroy();
    // ENOENT: no socket file (or pipe); ECONNREFUSED: a stale file nobody listens on.
    if (connectError.code === "ENOENT" || connectError.code === "ECONNREFUSED") {
      return { kind: "absent" };
    }
    return {
      kind: "failed",
      message: `cannot connect to Code Mode at ${socketPath}: ${connectError.message}`,
      // A listener that is going away can reset a connection it had queued.
      transient: connectError.code === "ECONNRESET" || connectError.code === "EPIPE",
    };
  }
  socket.on("error", () => undefined);
  const outcome = await challenge(socket, token, purpose);
  if (outcome.kind === "connected") return { kind: "connected", socket };
  socket.destroy();
  return { kind: "failed", message: outcome.message(socketPath), transient: outcome.transient };
}

/**
 * What the shim tried, for the "not running" message: the app's path and whether it exists,
 * and where its output went with the last line there, so the user can see why it did not come up.
 */
function triedText(outcome: StartOutcome | undefined, dataDir: string): string {
  if (outcome === undefined) return "";
  const exists = (t: { file: string; exists: boolean }): string =>
    `${t.file} (${t.exists ? "it exists" : "it does not exist"})`;
  if (outcome.started === null) {
    return (
      " Found no app to start: CODEMODE_APP is not set, this shim is not in a built codemode " +
      `package, and no installed app is at ${outcome.tried.map(exists).join(", ")}.`
    );
  }
  const first = outcome.tried[0];
  let text = first === undefined ? "" : ` Tried the app at ${exists(first)}.`;
  if (outcome.logFile !== null) {
    const last = lastLogLine(dataDir);
    text +=
      ` Its output is in ${outcome.logFile}` +
      (last === null ? " (empty)." : `; its last line: ${JSON.stringify(last)}.`);
  }
  return text;
}

async function notRunning(
  options: ShimOptions,
  started: StartOutcome | undefined,
): Promise<number> {
  const { stdin, stdout, stderr, dataDir } = options;
  const waited = (options.timeoutMs ?? SHIM_START_WAIT_MS) / 1000;
  const message =
    `Code Mode is not running` +
    (started?.started == null
      ? ""
      : ` (started ${started.started}, but it did not answer within ${waited} s)`) +
    `.${triedText(started, dataDir)} ${NOT_RUNNING_HELP}`;
  // The log's last line is the app's text: escaped, it cannot act on the terminal.
  stderr.write(`codemode shim: ${terminalText(message)} (data directory: ${dataDir})\n`);

  const first = await readLine(
    stdin,
    SHIM_FIRST_LINE_MAX_BYTES,
    options.firstLineWaitMs ?? SHIM_FIRST_LINE_WAIT_MS,
  );
  const text = first.kind === "line" ? first.line : first.kind === "end" ? first.partial : "";
  const id = requestId(text);
  if (id !== undefined) {
    const answer = {
      jsonrpc: "2.0",
      id,
      error: { code: SHIM_NOT_RUNNING_CODE, message, data: { dataDir } },
    };
    await new Promise<void>((resolve) => {
      stdout.write(JSON.stringify(answer) + "\n", () => resolve());
    });
  }
  stdin.pause();
  return SHIM_EXIT.notRunning;
}

/** The id of a JSON-RPC request line, or undefined if the line is not one. */
export function requestId(line: string): string | number | undefined {
  const id = parseObject(line)?.id;
  return isId(id) ? id : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
