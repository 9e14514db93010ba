// The shapes a wrapped server shows its users: its state, its options, its events, and the
// host-side errors of a call or a start (as opposed to errors the server answers with).

import type { Stream } from "node:stream";
import type { StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { BackoffOptions, Clock } from "./restart-backoff.js";
import type { ServerState, ServerStatus } from "../core/ports/server-state.js";

/**
 * Bound on `initialize` and each `tools/list` page while starting. Generous because a
 * first start through a package runner may download the server.
 */
export const SERVER_START_TIMEOUT_MS = 60_000;

export type { ServerState, ServerStatus };

/**
 * What a transport factory must give back: an SDK transport, with the child's stderr and pid
 * when it has them. The host's own (server-process-transport.ts) has the rest too, which bound
 * what a server costs the host; a test's transport may lack them.
 */
export interface ServerTransport extends Transport {
  readonly stderr?: Stream | null;
  readonly pid?: number | null;
  /** Bytes the host sent that the child has not read yet. */
  readonly unreadInputBytes?: number;
  /** Told once when the server writes more bytes than a window allows. */
  onOutputFlood?: (() => void) | undefined;
  /** Told of each chunk of output that ends no line. */
  onChunkWithoutLine?: (() => void) | undefined;
  /** Reads nothing more of the child's output. */
  stopReading?(): void;
  /** Ends the child and all it started at once, no grace. */
  killNow?(): void;
}

export type TransportFactory = (params: StdioServerParameters) => ServerTransport;

export interface WrappedServerOptions {
  transportFactory?: TransportFactory;
  clock?: Clock;
  backoff?: Partial<BackoffOptions>;
  clientInfo?: { name: string; version: string };
  startTimeoutMs?: number;
  /** PATH of the child when its entry sets none (default: this process's PATH). */
  path?: string;
}

export interface CallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * Asked after a wait for a restart, right before the call goes out: false when the tool the
   * call was checked against changed meanwhile (a restarted server may list it anew).
   */
  stillGoes?: () => boolean;
}

export interface WrappedServerEvents {
  status: (state: ServerState) => void;
  tools: (tools: readonly Tool[]) => void;
}

export type WrappedServerErrorCode =
  /** close() was called; the server will not come back. */
  | "closed"
  /** Not started yet, starting for the first time, or failed without an automatic restart. */
  | "not-ready"
  /** Crashed and an automatic restart is scheduled or running. */
  | "restarting"
  /** The call went out and the server gave no answer within timeoutMs. */
  | "timeout"
  /** The caller's signal aborted the call. */
  | "aborted"
  /** The connection closed while the call was out (the server died mid-call). */
  | "connection-closed"
  /** ServerSet only: no server of that name. */
  | "unknown-server";

/** A failure of the host side of a call or start, as opposed to an error the server answered with. */
export class WrappedServerError extends Error {
  override readonly name = "WrappedServerError";
  constructor(
    readonly code: WrappedServerErrorCode,
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A start that did not reach "ready"; carries the server's last stderr lines. */
export class ServerStartError extends Error {
  override readonly name = "ServerStartError";
  constructor(
    readonly server: string,
    message: string,
    readonly stderrTail: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function closedError(server: string): WrappedServerError {
  return new WrappedServerError("closed", server, `Server "${server}" is closed`);
}

/** An error's message, or the thrown value as text when it is not an Error. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a failed start says of a server that went away before it answered. */
export const STOPPED_BEFORE_ANSWERING =
  "it stopped before answering (it exited or closed its output)";

/**
 * Why a start failed, in words a user reads on the Servers page. The SDK's "MCP error -32000:
 * Connection closed" is what a server that exits (or closes its output) before it answers
 * leaves, and it meant nothing there; the lines the server printed, shown with it, say why.
 */
export function startFailureText(error: unknown): string {
  if (
    error instanceof McpError &&
    error.code === (ErrorCode.ConnectionClosed as number) &&
    error.message.endsWith("Connection closed")
  ) {
    return STOPPED_BEFORE_ANSWERING;
  }
  return errorText(error);
}

export function notReadyError(server: string, status: ServerStatus): WrappedServerError {
  return new WrappedServerError("not-ready", server, `Server "${server}" is not ready (${status})`);
}

export function supersededError(server: string): WrappedServerError {
  return new WrappedServerError(
    "not-ready",
    server,
    `Start of server "${server}" was superseded by a restart`,
  );
}

export function abortedError(server: string, tool: string, reason: unknown): WrappedServerError {
  return new WrappedServerError(
    "aborted",
    server,
    `Call to "${tool}" of server "${server}" was cancelled`,
    {
      cause: reason,
    },
  );
}
