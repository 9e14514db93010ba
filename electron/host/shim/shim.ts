// The stdio <-> socket byte pipe MCP clients start. It must start fast and stay dumb: it
// imports only Node built-ins, the local-access modules, shared/limits.ts and the
// terminal-text escaper, and parses no MCP except the first line in the one case where there is no host to give it to.
// Its handshake is in shim-handshake.ts, how it starts the app in start-app.ts.

import net from "node:net";
import type { Readable, Writable } from "node:stream";
import { readLine } from "../local-access/handshake.js";
import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";
import { terminalText } from "../cli/terminal-text.js";
import { checkDataDirTrust } from "../local-access/data-dir-trust.js";
import {
  LOCAL_ACCESS_NAMES,
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
  SHIM_STOPPED_CODE,
} from "../local-access/local-access-constants.js";
import {
  socketLocationFor,
  socketProblem,
  type SocketLocation,
} from "../local-access/socket-path.js";
import { TokenError, readToken } from "../local-access/token.js";
import { challenge } from "./shim-handshake.js";
import { lastLogLine } from "./app-log.js";
import { defaultStartApp, type StartApp, type StartOutcome } from "./start-app.js";
import { InFlight } from "./in-flight.js";

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
}

type Attempt =
  | { kind: "connected"; socket: net.Socket }
  /** Nothing to connect to yet: worth starting the app and trying again. */
  | { kind: "absent" }
  | { kind: "failed"; message: string };

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
    const deadline = Date.now() + (options.timeoutMs ?? LOCAL_ACCESS_LIMITS.shimStartWaitMs);
    const interval = options.retryIntervalMs ?? LOCAL_ACCESS_LIMITS.shimRetryIntervalMs;
    while (result.kind === "absent" && Date.now() < deadline) {
      await sleep(Math.min(interval, Math.max(0, deadline - Date.now())));
      result = await attempt(dataDir, location, connect);
    }
  }
  switch (result.kind) {
    case "connected":
      return pipe(result.socket, options);
    case "failed":
      // The message may carry a reason whatever listens on the socket chose (an impostor's
      // "ERR <text>"): escaped, it cannot act on the terminal (OSC 52 clipboard writes, fake lines).
      stderr.write(`codemode shim: ${terminalText(result.message)}\n`);
      return SHIM_EXIT.failed;
    case "absent":
      return notRunning(options, started);
  }
}

async function attempt(
  dataDir: string,
  location: SocketLocation,
  connect: (socketPath: string) => net.Socket,
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
    };
  }
  socket.on("error", () => undefined);
  const outcome = await challenge(socket, token);
  if (outcome.kind === "connected") return { kind: "connected", socket };
  socket.destroy();
  return { kind: "failed", message: outcome.message(socketPath) };
}

/** Why a request in flight failed: a crash and a quit look the same from here. */
const GONE = "it went away before answering (the app quit or crashed)";

function answeredText(count: number): string {
  return `answered ${count} request(s) in flight with an error`;
}

/**
 * Bytes both ways until the host ends the connection. If the host goes away with requests
 * unanswered, the shim answers each with an error, so the client is not left to its timeout.
 */
function pipe(socket: net.Socket, options: ShimOptions): Promise<number> {
  const { stdin, stdout, stderr } = options;
  const inFlight = new InFlight();
  return new Promise((resolve) => {
    let settled = false;
    let hostEnded = false;
    /** The host went away (broke the connection, or ended it with requests unanswered). */
    let stopped = false;
    const finish = (code: number): void => {
      if (settled) return;
      settled = true;
      stdin.unpipe(socket);
      // A paused stdin holds no event-loop reference, so the process can exit.
      stdin.pause();
      socket.destroy();
      resolve(code);
    };
    /** Answers what the host left unanswered; how many it answered. */
    let clientEnded = false;
    const answerInFlight = (why: string): number => {
      // A client that ended its stdin has said goodbye: nobody waits for these answers.
      const ids = clientEnded ? [] : inFlight.pending();
      for (const id of ids) {
        const error = { code: SHIM_STOPPED_CODE, message: `Code Mode stopped: ${why}` };
        stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error }) + "\n");
      }
      return ids.length;
    };
    socket.on("end", () => {
      hostEnded = true;
      // Everything the host sent has been written to stdout by now (pipe writes on 'data').
      const answered = answerInFlight(GONE);
      if (answered > 0) {
        stopped = true;
        stderr.write(
          `codemode shim: Code Mode stopped: it closed the connection; ${answeredText(answered)}\n`,
        );
      }
      // pipe() never ends process.stdout, so we do; its 'finish' then means all is written.
      stdout.end();
    });
    socket.on("close", () => {
      if (hostEnded) return;
      stopped = true;
      const lost = answerInFlight(GONE);
      stderr.write(
        `codemode shim: Code Mode stopped: lost the connection to Code Mode` +
          (lost > 0 ? `; ${answeredText(lost)}` : "") +
          "\n",
      );
      // Exit once the answers are out ('finish' below), or at once if stdout is gone.
      if (stdout.writableFinished || stdout.destroyed) finish(SHIM_EXIT.failed);
      else stdout.end();
    });
    // Once the host has ended and everything it sent is written out, we are done.
    stdout.on("finish", () => finish(stopped ? SHIM_EXIT.failed : SHIM_EXIT.ok));
    // The client closed our stdout: nobody is left to talk to.
    stdout.on("error", () => finish(stopped ? SHIM_EXIT.failed : SHIM_EXIT.ok));
    stdin.on("error", () => socket.end());
    stdin.on("end", () => (clientEnded = true));
    socket.on("data", (chunk: Buffer) => inFlight.fromHost.push(chunk));
    stdin.on("data", (chunk: Buffer | string) =>
      inFlight.fromClient.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
    );
    socket.pipe(stdout, { end: false });
    // On stdin's end this half-closes the socket; the host answers what is in flight, then ends.
    stdin.pipe(socket);
  });
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
  const waited = (options.timeoutMs ?? LOCAL_ACCESS_LIMITS.shimStartWaitMs) / 1000;
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
    LOCAL_ACCESS_LIMITS.shimFirstLineMaxBytes,
    options.firstLineWaitMs ?? LOCAL_ACCESS_LIMITS.shimFirstLineWaitMs,
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
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  const id = (parsed as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
