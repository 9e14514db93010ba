import { randomBytes } from "node:crypto";
import { chmod, link, rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import {
  hostProofLine,
  newNonce,
  parseHello,
  parseShimProof,
  proof,
  proofValid,
  readLine,
  type HelloPurpose,
  type LineResult,
} from "./handshake.js";
import {
  AlreadyRunningError,
  acquireInstanceLock,
  lockPath,
  removeStaleSocket,
  type InstanceLock,
} from "./instance-lock.js";
import { LOCAL_ACCESS_LIMITS } from "../../../../shared/limits.js";
import { HANDSHAKE } from "./local-access-constants.js";
import { prepareSocketDir, socketLocationFor, type SocketLocation } from "./socket-path.js";
import { ensureToken } from "./token.js";

/** Each handshake line the host reads (the shim's HELLO and PROOF), newline included. */
export const HANDSHAKE_MAX_BYTES = 200;

/**
 * Connections open on the socket at once, handshaking or connected. Each connected one holds
 * an MCP session (~70 KB); past this a new one is refused with an `ERR` line, so a client that
 * holds the token and connects in a loop cannot grow the host until it runs out of memory
 * (the HTTP transport's sessions have the same kind of cap, HTTP_SESSIONS_MAX).
 */
export const SOCKET_CONNECTIONS_MAX = 256;

export const SOCKET_MODE = 0o600;

export interface ConnectionInfo {
  /** Counts connections (refused ones too) from 1, per listener. */
  id: number;
  acceptedAt: Date;
}

export type RefusalReason =
  "bad-token" | "outdated" | "malformed" | "too-long" | "timeout" | "closed" | "error" | "busy";

export interface Refusal {
  id: number;
  reason: RefusalReason;
  /** One line for the audit log; never contains what the client sent. */
  message: string;
}

export interface ListenOptions {
  dataDir: string;
  /** Gets the socket after a good handshake, positioned at the client's first MCP byte. */
  onConnection: (socket: net.Socket, info: ConnectionInfo) => void;
  /**
   * A client that proved it knows the token asks for a new link to the browser UI: the link,
   * or null when this host serves no browser UI. Without it, every such hello is answered so.
   */
  uiLink?: () => string | null;
  onRefused?: (refusal: Refusal) => void;
  /** Errors of the listening server after it started (the connections' own are swallowed). */
  onError?: (error: Error) => void;
  /** Where XDG_RUNTIME_DIR comes from; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** A lock the host already holds; without one the listener takes and releases its own. */
  instanceLock?: InstanceLock;
  handshakeTimeoutMs?: number;
  /** Connections open at once (SOCKET_CONNECTIONS_MAX unless said). */
  connectionsMax?: number;
}

const REFUSAL_TEXT: Record<RefusalReason, string> = {
  "bad-token": "bad token",
  // An old shim prints this line: it must tell the user what to do, in under 200 bytes.
  outdated:
    "outdated handshake: this shim is older than Code Mode and sends its token; update the MCP client's Code Mode entry (or reinstall it from the app)",
  malformed: "malformed handshake",
  "too-long": "handshake line too long",
  timeout: "handshake timeout",
  closed: "closed before the handshake ended",
  error: "connection error during the handshake",
  busy: `too many connections open to Code Mode (${SOCKET_CONNECTIONS_MAX}): close MCP clients you no longer use`,
};

/** The answer to a ui-link hello where there is no browser UI. */
export const NO_UI_LINK =
  "this Code Mode has no browser UI: start it with `codemode daemon --ui` (the desktop app opens its window from the tray)";

/**
 * The host's end of the local socket: only a client that proves it knows the install's token
 * (handshake.ts) gets to speak MCP. Everything else is answered with one `ERR` line and closed.
 */
export class LocalSocketListener {
  #server: net.Server | undefined;
  #location: SocketLocation | undefined;
  #ownLock: InstanceLock | undefined;
  #sockets = new Set<net.Socket>();
  #nextId = 1;
  #closing = false;

  /** The socket path or pipe name, once listening. */
  get socketPath(): string | undefined {
    return this.#server ? this.#location?.socketPath : undefined;
  }

  async listen(options: ListenOptions): Promise<void> {
    if (this.#server || this.#closing) throw new Error("this listener was already started");
    const { dataDir } = options;
    const location = socketLocationFor(dataDir, options.env);
    const lock = options.instanceLock ?? (await acquireInstanceLock(dataDir, { location }));
    if (!options.instanceLock) this.#ownLock = lock;
    try {
      const token = await ensureToken(dataDir);
      await prepareSocketDir(location);
      await removeStaleSocket(dataDir, location);
      const server = net.createServer({ allowHalfOpen: true }, (socket) => {
        void this.#handshake(socket, token, options);
      });
      // A Unix socket is bound under a temporary name, given its mode, then linked into
      // place: it never appears at its real name with the umask's mode. The 0700 directory
      // is the real guard; the mode is a second one.
      const bindPath =
        location.kind === "unix"
          ? path.join(location.dir, `.bind-${randomBytes(4).toString("hex")}`)
          : location.socketPath;
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(bindPath, () => {
          server.off("error", reject);
          resolve();
        });
      }).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
          throw new AlreadyRunningError(dataDir, undefined, lockPath(dataDir));
        }
        throw error;
      });
      server.on("error", (error) => options.onError?.(error));
      this.#server = server;
      if (location.kind === "unix") {
        try {
          await chmod(bindPath, SOCKET_MODE);
          // link, not rename: it fails if a socket is there already, as bind would.
          await link(bindPath, location.socketPath).catch((error: unknown) => {
            if ((error as NodeJS.ErrnoException).code === "EEXIST") {
              throw new AlreadyRunningError(dataDir, undefined, lockPath(dataDir));
            }
            throw error;
          });
        } finally {
          await rm(bindPath, { force: true });
        }
      }
      // Only now is the path ours, for close() to remove.
      this.#location = location;
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async #handshake(socket: net.Socket, token: string, options: ListenOptions): Promise<void> {
    const id = this.#nextId++;
    const acceptedAt = new Date();
    // A client that vanishes must never take the host down; consumers add their own handler.
    socket.on("error", () => undefined);
    // Counted before the handshake too: a connection that never finishes one still holds a
    // socket until its timeout.
    const full = this.#sockets.size >= (options.connectionsMax ?? SOCKET_CONNECTIONS_MAX);
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));

    const outcome = full ? "busy" : await this.#challenge(socket, token, options);
    if (this.#closing) {
      socket.destroy();
      return;
    }
    if (outcome === "ui-link") {
      const link = options.uiLink?.() ?? null;
      socket.resume();
      socket.end(
        link === null ? `${HANDSHAKE.err} ${NO_UI_LINK}\n` : `${HANDSHAKE.link} ${link}\n`,
        () => socket.destroy(),
      );
      return;
    }
    const reason = outcome === "mcp" ? null : outcome;
    if (reason === null) {
      // After readLine drops its listener the stream settles on the next tick; handing it
      // over after that lets the consumer's on("data") or pipe() start it normally.
      process.nextTick(() => {
        if (!socket.destroyed) options.onConnection(socket, { id, acceptedAt });
      });
      return;
    }
    const message = REFUSAL_TEXT[reason];
    options.onRefused?.({ id, reason, message });
    if (socket.writable) {
      // Drop whatever else the client sends; it is never read.
      socket.resume();
      socket.end(`${HANDSHAKE.err} ${message}\n`, () => socket.destroy());
    } else {
      socket.destroy();
    }
  }

  /**
   * Runs the host's side of the challenge-response; what the client came for when it proved
   * it knows the token (OK is sent), else why not. The whole exchange has one deadline.
   */
  async #challenge(
    socket: net.Socket,
    token: string,
    options: ListenOptions,
  ): Promise<RefusalReason | HelloPurpose> {
    const deadline =
      Date.now() + (options.handshakeTimeoutMs ?? LOCAL_ACCESS_LIMITS.handshakeTimeoutMs);
    const next = (): Promise<LineResult> =>
      readLine(socket, HANDSHAKE_MAX_BYTES, Math.max(0, deadline - Date.now()));
    const failed = (result: Exclude<LineResult, { kind: "line" }>): RefusalReason =>
      result.kind === "end" ? "closed" : result.kind;

    const first = await next();
    if (first.kind !== "line") return failed(first);
    const hello = parseHello(first.line);
    if (hello.kind !== "hello") return hello.kind;
    if (this.#closing || !socket.writable) return "closed";
    const hostNonce = newNonce();
    socket.write(hostProofLine(hostNonce, proof("host", token, hello.shimNonce, hostNonce)));

    const second = await next();
    if (second.kind !== "line") return failed(second);
    const presented = parseShimProof(second.line);
    if (presented === undefined) return "malformed";
    if (!proofValid(presented, "shim", token, hello.shimNonce, hostNonce)) return "bad-token";
    socket.write(`${HANDSHAKE.ok}\n`);
    return hello.purpose;
  }

  /** Stops listening, drops every connection, removes the socket file, releases our lock. */
  async close(): Promise<void> {
    this.#closing = true;
    const server = this.#server;
    const location = this.#location;
    this.#server = undefined;
    if (server) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of this.#sockets) socket.destroy();
      await closed;
    }
    for (const socket of this.#sockets) socket.destroy();
    if (server && location?.kind === "unix") await rm(location.socketPath, { force: true });
    await this.#ownLock?.release();
    this.#ownLock = undefined;
  }
}
