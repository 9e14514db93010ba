import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { EntryWindow } from "./entry-window.js";
import { NotLoggedFlush } from "./not-logged-flush.js";

/**
 * Connections cut off for leaving too many answers unread (socketUnreadMaxBytes,
 * wsUnreadMaxBytes) logged one by one per CUT_OFF_WINDOW_MS; the rest are counted in the next.
 */
export const CUT_OFF_ENTRIES_LOGGED = 30;

/** The window CUT_OFF_ENTRIES_LOGGED counts over. */
export const CUT_OFF_WINDOW_MS = 60_000;

/** The name client_cut_off gives the browser UI's WebSocket, which has no client name. */
export const BROWSER_UI_CLIENT = "browser UI";

/**
 * The audit entries of connections cut off for leaving too many answers unread: the host
 * protected its memory silently, so a user could not tell a client had been doing it. A
 * client holding the token can connect, hoard and be cut off in a loop, so only
 * CUT_OFF_ENTRIES_LOGGED a window are logged one by one, the rest counted: in
 * cut_offs_not_logged entries (see NotLoggedFlush), or in the next one logged.
 */
export class CutOffLog {
  readonly #window: EntryWindow;
  readonly #notLogged: NotLoggedFlush;

  constructor(
    private readonly record: (entry: AuditEntryInput) => void,
    now: () => number = Date.now,
  ) {
    const window = new EntryWindow(
      { logged: CUT_OFF_ENTRIES_LOGGED, windowMs: CUT_OFF_WINDOW_MS },
      now,
    );
    this.#window = window;
    this.#notLogged = new NotLoggedFlush(
      () => window.takeNotLogged(),
      (count) => record({ kind: "cut_offs_not_logged", count }),
      CUT_OFF_WINDOW_MS,
    );
  }

  /** At the stop: the cut-offs left out of the log and not yet counted in it. */
  flush(): void {
    this.#notLogged.flush();
  }

  /** A shim's connection, cut off past HOST_LIMITS.socketUnreadMaxBytes. */
  socket(view: { name: string; connectionId: string }, unreadBytes: number): void {
    this.cutOff("socket", view.name, view.connectionId, unreadBytes);
  }

  /** A browser UI WebSocket, cut off past HOST_LIMITS.wsUnreadMaxBytes. */
  ws(unreadBytes: number): void {
    this.cutOff("ws", BROWSER_UI_CLIENT, null, unreadBytes);
  }

  private cutOff(
    transport: "socket" | "ws",
    client: string,
    connectionId: string | null,
    unreadBytes: number,
  ): void {
    const notLogged = this.#window.admit();
    if (notLogged === null) {
      this.#notLogged.leftOut();
      return;
    }
    const limitBytes =
      transport === "socket" ? HOST_LIMITS.socketUnreadMaxBytes : HOST_LIMITS.wsUnreadMaxBytes;
    this.record({
      kind: "client_cut_off",
      transport,
      client,
      connectionId,
      unreadBytes,
      limitBytes,
      ...(notLogged > 0 ? { notLogged } : {}),
    });
  }
}
