import { EntryWindow } from "./entry-window.js";

/**
 * Client connections logged one by one (client_connected, then client_disconnected) per
 * CLIENT_ENTRIES_WINDOW_MS; the rest are counted (notLogged) on the next one logged. A client
 * with the token connected and left in a loop ~1,100 times a second, two entries each
 * (~550 KB/s), so the audit's size cap would remove its oldest files within minutes. Far above
 * what real clients do; their runs are logged whatever this says.
 */
export const CLIENT_ENTRIES_LOGGED = 100;

/** The window CLIENT_ENTRIES_LOGGED counts over. */
export const CLIENT_ENTRIES_WINDOW_MS = 60 * 60_000;

/**
 * A client holding the token can connect and leave in a loop, and each connection was logged
 * twice (client_connected, client_disconnected): ~550 KB a second from one process, so the
 * audit's size cap would remove the oldest files (the runs it wants forgotten) within minutes.
 * Only CLIENT_ENTRIES_LOGGED connections per window are logged one by one; the next
 * one logged says how many were left out (notLogged). A connection is logged as leaving only
 * if it was logged as coming. Runs are logged whatever this says.
 */
export class ClientEntryLimiter {
  readonly #window: EntryWindow;
  /** Connections logged as come and not yet as gone: at most the connections open at once. */
  readonly #open = new Set<string>();

  constructor(now: () => number = Date.now) {
    this.#window = new EntryWindow(
      { logged: CLIENT_ENTRIES_LOGGED, windowMs: CLIENT_ENTRIES_WINDOW_MS },
      now,
    );
  }

  /** Null when this connection is not logged; else how many were left out before it (0: none). */
  connected(connectionId: string): number | null {
    const dropped = this.#window.admit();
    if (dropped !== null) this.#open.add(connectionId);
    return dropped;
  }

  /** The connections left out and not yet counted on a logged one (0: none); counted from 0 again. */
  takeNotLogged(): number {
    return this.#window.takeNotLogged();
  }

  /** Whether this connection's end is logged: only when its start was. */
  disconnected(connectionId: string): boolean {
    return this.#open.delete(connectionId);
  }
}
