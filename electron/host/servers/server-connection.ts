// The link to one child process of a wrapped server: its transport, the SDK client in
// front of it, and the tail of its stderr.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";
import type { StderrTail } from "./stderr-tail.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { listAllTools, type ToolListing } from "./tool-listing.js";
import { FLOOD_REASON, meterMessages } from "./message-meter.js";
import { BYTES_FLOOD_REASON } from "./server-output.js";
import { ByteWindow } from "./byte-window.js";
import { RateBucket } from "./rate-bucket.js";
import type { ServerTransport, TransportFactory } from "./wrapped-server-types.js";
import { ServerProcessTransport } from "./server-process-transport.js";

/** Why a server that read too little of what the host sent it was stopped. */
export const UNREAD_INPUT_REASON = `it left more than ${SERVER_LIMITS.inputUnreadMaxBytes / (1024 * 1024)} MiB of the host's messages unread`;

/** Why a server that wrote its stderr in too many pieces was stopped. */
export const STDERR_PIECES_REASON = `it wrote to its stderr in more than ${SERVER_LIMITS.messagesBurstMax} pieces at once, or more than ${SERVER_LIMITS.messagesPerSecondMax} a second for longer`;

/** Why a server that wrote too much to its stderr was stopped: its state's lastError says so. */
export const STDERR_FLOOD_REASON = `it wrote more than ${SERVER_LIMITS.outputBytesPerWindowMax / (1024 * 1024)} MiB to its stderr in ${SERVER_LIMITS.outputBytesWindowMs / 1000} s`;

/** Each server in a process group of its own, ended with its whole tree (process-tree.ts). */
export const defaultTransportFactory: TransportFactory = (params) =>
  new ServerProcessTransport(params);

export interface Connection {
  client: Client;
  transport: ServerTransport;
  stderr: StderrTail;
  /** Serialises tools/list re-fetches after list_changed notifications. */
  refreshing: Promise<void> | null;
  refreshAgain: boolean;
  /** When the next re-listing may start (Date.now() ms): re-listings are paced. */
  nextListingAt: number;
  /** Why the host stopped this server (it flooded it with messages), or null. */
  stoppedBecause: string | null;
}

export interface SpawnOptions {
  transportFactory: TransportFactory;
  entry: ServerEntry;
  /** PATH of the child when its entry sets none (undefined: this process's PATH). */
  path: string | undefined;
  clientInfo: { name: string; version: string };
  /** Where the child's stderr goes, created by the caller so a failed spawn still has it. */
  stderr: StderrTail;
}

/** Spawns the child and puts a client in front of it; the client is not connected yet. */
export function spawnConnection(options: SpawnOptions): Connection {
  const { entry, stderr } = options;
  const transport = options.transportFactory({
    command: entry.command,
    args: entry.args,
    // Only the SDK's safe defaults (PATH, HOME, ...) and what the entry names:
    // the host's own environment (tokens, keys) never reaches a wrapped server.
    // PATH is the one the host resolved from the user's login shell (server-path.ts), so
    // `npx` or `uvx` are found as in the user's terminal; the command is looked up in it.
    env: {
      ...getDefaultEnvironment(),
      ...(options.path !== undefined ? { PATH: options.path } : {}),
      ...entry.env,
    },
    stderr: "pipe",
  });
  const client = new Client(options.clientInfo, { capabilities: {} });
  const connection: Connection = {
    client,
    transport,
    stderr,
    refreshing: null,
    refreshAgain: false,
    nextListingAt: 0,
    stoppedBecause: null,
  };
  // Its stderr costs the host a decode and a split per chunk: counted too, and stopped the same
  // way past the same bound, or a flood of it kept the host's thread ~65% busy.
  // Each piece read is counted as a message is, or a server writing one byte per write ("x" or
  // a newline) kept the host's thread ~24-36% busy far under the bytes bound, never stopped. An
  // honest server logs a line per write at most, far under the bound.
  const stderrBytes = new ByteWindow();
  const stderrPieces = new RateBucket();
  transport.stderr?.on("data", (chunk: Buffer | string) => {
    if (connection.stoppedBecause !== null) return;
    if (stderrBytes.add(chunk.length)) {
      connection.stoppedBecause = STDERR_FLOOD_REASON;
      stopAtOnce(transport);
      return;
    }
    if (!stderrPieces.take()) {
      connection.stoppedBecause = STDERR_PIECES_REASON;
      stopAtOnce(transport);
      return;
    }
    stderr.write(chunk);
  });
  // What the host writes to the child waits in the host's memory until the child reads it, and
  // a server chooses how much it is sent (the SDK answers its requests, echoing their ids).
  const send = transport.send.bind(transport);
  transport.send = (message, sendOptions) => {
    if (
      connection.stoppedBecause === null &&
      (transport.unreadInputBytes ?? 0) > SERVER_LIMITS.inputUnreadMaxBytes
    ) {
      connection.stoppedBecause = UNREAD_INPUT_REASON;
      stopAtOnce(transport);
    }
    if (connection.stoppedBecause !== null) {
      return Promise.reject(new Error(`Server stopped: ${connection.stoppedBecause}`));
    }
    return send(message, sendOptions);
  };
  // Before the client connects, so every message is counted before it is handled.
  const countMessage = meterMessages(transport, () => {
    connection.stoppedBecause = FLOOD_REASON;
    transport.stopReading?.();
    stopAtOnce(transport);
  });
  // Its stdout's bytes and reads cost the host too: counted the same way.
  transport.onChunkWithoutLine = countMessage;
  transport.onOutputFlood = () => {
    connection.stoppedBecause = BYTES_FLOOD_REASON;
    stopAtOnce(transport);
  };
  return connection;
}

/**
 * Stops a server that floods the host, without the grace a stop gives (stdin closed, then
 * SIGTERM, SERVER_LIMITS.stopStdinGraceMs and stopTermGraceMs), during which whatever the child
 * writes would still be read and parsed (and a child of a wrapper such as npx, still holding the
 * pipe, could write on for good). So the child is killed first: with its whole tree on the
 * host's own transport; on another transport (a test's) by its pid, if it tells one.
 */
function stopAtOnce(transport: ServerTransport): void {
  if (transport.killNow) {
    // What it started goes too: a child holding its pipes could go on writing.
    transport.killNow();
  } else if (typeof transport.pid === "number") {
    try {
      process.kill(transport.pid, "SIGKILL");
    } catch {
      // It is gone already.
    }
  }
  void transport.close().catch(() => undefined);
}

export interface RefreshOptions {
  /** Timeout of each tools/list request. */
  timeoutMs: number;
  /** False once the server has dropped this connection: its listings no longer count. */
  isCurrent: () => boolean;
  /** Takes a fresh list from a current connection. */
  apply: (listing: ToolListing) => void;
}

/** Re-lists the server's tools each time it says they changed (refreshTools). */
export function followToolChanges(connection: Connection, options: RefreshOptions): void {
  connection.client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
    refreshTools(connection, options),
  );
}

/**
 * Re-lists after `notifications/tools/list_changed`; bursts collapse into one more listing.
 * The server decides when it sends one, and each listing costs the host (parse, pins, pin file,
 * catalog), so listings are paced: each starts SERVER_LIMITS.relistMinIntervalMs after the
 * previous one started at least, or relistPaceFactor times as long as it took if that is more.
 */
export function refreshTools(connection: Connection, options: RefreshOptions): void {
  if (connection.refreshing) {
    connection.refreshAgain = true;
    return;
  }
  connection.refreshing = (async () => {
    do {
      const wait = connection.nextListingAt - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      if (!options.isCurrent()) break;
      connection.refreshAgain = false;
      const started = Date.now();
      try {
        const listing = await listAllTools(connection.client, options.timeoutMs);
        if (options.isCurrent()) options.apply(listing);
      } catch {
        // The previous list stays; if the connection died, onclose reports that.
      }
      const took = Date.now() - started;
      connection.nextListingAt =
        started +
        Math.max(SERVER_LIMITS.relistMinIntervalMs, took * SERVER_LIMITS.relistPaceFactor);
    } while (connection.refreshAgain && options.isCurrent());
    connection.refreshing = null;
  })();
}
