import type { Server } from "node:net";
import type { Socket } from "node:net";

/** What a ConnectionCap tells: a connection it closed, and one that ended with `open` left. */
export interface ConnectionCapWatcher {
  closedOne(): void;
  ended(open: number): void;
}

const IGNORED: ConnectionCapWatcher = { closedOne: () => undefined, ended: () => undefined };

/**
 * At most `max` connections open at once on a loopback server that anyone on this machine can
 * reach before any token is checked. Refusing the one past the cap (server.maxConnections) let
 * a local process holding `max` idle connections (re-opened as Node's header timeout ends
 * them) lock the real client and the browser UI out for as long as it liked: every new
 * connection was closed as it came. Instead the oldest connection that has not shown the token
 * goes; one that has (`trust`) is kept. A client that sends its request as it connects is
 * trusted within a moment, so a flood would have to open `max` connections in that moment to
 * push it out.
 */
export class ConnectionCap {
  /** Open connections, oldest first (a Set keeps insertion order). */
  readonly #open = new Set<Socket>();
  readonly #trusted = new WeakSet<Socket>();

  constructor(
    server: Server,
    private readonly max: number,
    /** Told what the cap does (the audit's ConnectionCapLog); the cap keeps the one count. */
    private readonly watcher: ConnectionCapWatcher = IGNORED,
  ) {
    server.on("connection", (socket: Socket) => this.#admit(socket));
  }

  /** The connection showed the token: the cap never closes it. */
  trust(socket: Socket): void {
    this.#trusted.add(socket);
  }

  #admit(socket: Socket): void {
    this.#open.add(socket);
    socket.once("close", () => {
      // A connection the cap closed was taken off already: it is not counted twice.
      if (this.#open.delete(socket)) this.watcher.ended(this.#open.size);
    });
    if (this.#open.size <= this.max) return;
    // At most `max` looked at: the trusted ones at the front, then the oldest untrusted.
    let victim = socket;
    for (const open of this.#open) {
      if (!this.#trusted.has(open)) {
        victim = open;
        break;
      }
    }
    this.#open.delete(victim);
    victim.destroy();
    this.watcher.closedOne();
  }
}
