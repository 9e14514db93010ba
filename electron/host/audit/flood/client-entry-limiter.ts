import { HOST_LIMITS } from "../../../../shared/limits.js";
import { EntryWindow } from "./entry-window.js";

/**
 * A client holding the token can connect and leave in a loop, and each connection was logged
 * twice (client_connected, client_disconnected): ~550 KB a second from one process, so the
 * audit's size cap would remove the oldest files (the runs it wants forgotten) within minutes.
 * Only HOST_LIMITS.clientEntriesLogged connections per window are logged one by one; the next
 * one logged says how many were left out (notLogged). A connection is logged as leaving only
 * if it was logged as coming. Runs are logged whatever this says.
 */
export class ClientEntryLimiter {
  readonly #window: EntryWindow;
  /** Connections logged as come and not yet as gone: at most the connections open at once. */
  readonly #open = new Set<string>();

  constructor(now: () => number = Date.now) {
    this.#window = new EntryWindow(
      { logged: HOST_LIMITS.clientEntriesLogged, windowMs: HOST_LIMITS.clientEntriesWindowMs },
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
