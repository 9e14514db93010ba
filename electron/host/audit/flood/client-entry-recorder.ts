import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { ClientEntryLimiter } from "./client-entry-limiter.js";
import { CutOffLog } from "./cut-off-log.js";
import { NotLoggedFlush } from "./not-logged-flush.js";

/**
 * Connections left out of the log are written as a count (clients_not_logged) at the first
 * one left out, then at most this often while more are, rather than with the next one logged
 * or at the app's stop: a crash or a kill then loses at most this interval's count.
 */
export const CLIENTS_NOT_LOGGED_FLUSH_MS = 60_000;

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
 * CLIENTS_NOT_LOGGED_FLUSH_MS while more are, and at the app's stop. Written as it goes
 * rather than with the next connection logged (up to CLIENT_ENTRIES_WINDOW_MS later) or at the
 * stop: a crash or a SIGKILL of the app then loses at most the last interval's count, and never
 * the fact that connections were left out. A connection cut off for hoarding answers gets its
 * client_cut_off through a CutOffLog.
 */
export class ClientEntryRecorder {
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
      CLIENTS_NOT_LOGGED_FLUSH_MS,
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
