// The link to one child process of a wrapped server: its transport, the SDK client in
// front of it, and the tail of its stderr.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ServerEntry } from "../core/ports/server-config-types.js";
import type { StderrTail } from "./stderr-tail.js";
import { listAllTools, type ToolListing } from "./tool-listing.js";
import { FLOOD_REASON, meterMessages } from "./message-meter.js";
import { BYTES_FLOOD_REASON } from "./server-output.js";
import { ByteWindow, OUTPUT_BYTES_PER_WINDOW_MAX, OUTPUT_BYTES_WINDOW_MS } from "./byte-window.js";
import { RateBucket, MESSAGES_PER_SECOND_MAX, MESSAGES_BURST_MAX } from "./rate-bucket.js";
import type { ServerTransport, TransportFactory } from "./wrapped-server-types.js";
import { ServerProcessTransport } from "./server-process-transport.js";
import { MiB } from "../util/units.js";

/**
 * A server's re-listings after notifications/tools/list_changed start at least this far
 * apart (and ten times as far as the last one took, when longer); a burst collapses into the
 * next. A server answering each listing with another list_changed kept the host's thread
 * ~76% busy (188 listings a second of 100 tools: parse, pins, pin file save, catalog).
 */
export const RELIST_MIN_INTERVAL_MS = 1_000;

/** The pace of re-listings after a slow one: its duration times this. */
export const RELIST_PACE_FACTOR = 10;

/**
 * A server that leaves more than this of the host's messages to it unread (its stdin) is
 * stopped the same way. The SDK's client answers every request a server sends (ping at
 * least), echoing the id the server chose: a server sending pings with 1 MB ids and reading
 * nothing had the host hold 1 MB per ping, without bound. Far above what a server that reads
 * is ever sent at once (calls of at most BRIDGE_LIMITS.argsMaxBytes, a few dozen at a time).
 */
export const INPUT_UNREAD_MAX_BYTES = 16 * MiB;

/**
 * A server the host stopped (a flood, unread input) starts again no sooner than this, the
 * window the byte bounds count over. Each start opens new windows: restarted after its backoff
 * alone (0.5 s, 1 s, 2 s), a server writing OUTPUT_BYTES_PER_WINDOW_MAX per start would have the
 * host read that several times a window.
 */
export const STOPPED_RESTART_MIN_MS = OUTPUT_BYTES_WINDOW_MS;

/** Why a server that read too little of what the host sent it was stopped. */
export const UNREAD_INPUT_REASON = `it left more than ${INPUT_UNREAD_MAX_BYTES / (1024 * 1024)} MiB of the host's messages unread`;

/** Why a server that wrote its stderr in too many pieces was stopped. */
export const STDERR_PIECES_REASON = `it wrote to its stderr in more than ${MESSAGES_BURST_MAX} pieces at once, or more than ${MESSAGES_PER_SECOND_MAX} a second for longer`;

/** Why a server that wrote too much to its stderr was stopped: its state's lastError says so. */
export const STDERR_FLOOD_REASON = `it wrote more than ${OUTPUT_BYTES_PER_WINDOW_MAX / (1024 * 1024)} MiB to its stderr in ${OUTPUT_BYTES_WINDOW_MS / 1000} s`;

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
      (transport.unreadInputBytes ?? 0) > INPUT_UNREAD_MAX_BYTES
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
 * SIGTERM, STOP_STDIN_GRACE_MS and STOP_TERM_GRACE_MS), during which whatever the child
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
 * catalog), so listings are paced: each starts RELIST_MIN_INTERVAL_MS after the
 * previous one started at least, or RELIST_PACE_FACTOR times as long as it took if that is more.
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
        started + Math.max(RELIST_MIN_INTERVAL_MS, took * RELIST_PACE_FACTOR);
    } while (connection.refreshAgain && options.isCurrent());
    connection.refreshing = null;
  })();
}
