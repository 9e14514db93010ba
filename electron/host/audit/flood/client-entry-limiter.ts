import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { CutOffLog } from "./cut-off-log.js";
import { EntryWindow } from "./entry-window.js";
import { NotLoggedFlush } from "./not-logged-flush.js";

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

/** What a connection's entries say of it. */
interface ClientEntryView {
  name: string;
  version: string;
  connectionId: string;
}

/**
 * The audit entries of client connections, through a ClientEntryLimiter: client_connected
 * (with notLogged when some were left out before it), client_disconnected for a logged one,
 * and clients_not_logged for those left out: at the first one, then at most every
 * HOST_LIMITS.clientsNotLoggedFlushMs while more are, and at the app's stop. The count used to
 * wait for the next connection logged (up to clientEntriesWindowMs later) or the stop, so a
 * crash or a SIGKILL of the app lost it whole; now a kill loses at most the last interval's,
 * and never the fact that connections were left out. A connection cut off for hoarding answers
 * gets its client_cut_off through a CutOffLog.
 */
export class ClientAuditLog {
  readonly #limiter: ClientEntryLimiter;
  readonly #cutOffs: CutOffLog;
  readonly #notLogged: NotLoggedFlush;

  constructor(
    private readonly record: (entry: AuditEntryInput) => void,
    limiter = new ClientEntryLimiter(),
  ) {
    this.#limiter = limiter;
    this.#cutOffs = new CutOffLog(record);
    this.#notLogged = new NotLoggedFlush(
      () => limiter.takeNotLogged(),
      (count) => record({ kind: "clients_not_logged", count }),
      HOST_LIMITS.clientsNotLoggedFlushMs,
    );
  }

  connected(view: ClientEntryView): void {
    const notLogged = this.#limiter.connected(view.connectionId);
    if (notLogged === null) {
      this.#notLogged.leftOut();
      return;
    }
    this.record({
      kind: "client_connected",
      ...fields(view),
      ...(notLogged > 0 ? { notLogged } : {}),
    });
  }

  disconnected(view: ClientEntryView): void {
    if (this.#limiter.disconnected(view.connectionId)) {
      this.record({ kind: "client_disconnected", ...fields(view) });
    }
  }

  /** A shim's connection cut off for leaving too many answers unread (see CutOffLog). */
  cutOff(view: ClientEntryView, unreadBytes: number): void {
    this.#cutOffs.socket(view, unreadBytes);
  }

  /** At the app's stop: connections and cut-offs left out of the log and not yet counted in it. */
  flush(): void {
    this.#notLogged.flush();
    this.#cutOffs.flush();
  }
}

function fields(view: ClientEntryView) {
  return {
    client: view.name,
    clientVersion: view.version || null,
    connectionId: view.connectionId,
  };
}
