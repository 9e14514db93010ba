import type { AuditEntryInput, AuthTransport } from "../../../../shared/audit-entry.js";
import { EntryWindow } from "./entry-window.js";
import { NotLoggedFlush } from "./not-logged-flush.js";

/** Refused connections logged one by one per minute; the rest are counted in the next. */
export const AUTH_REFUSALS_PER_MINUTE = 30;

/** The window AUTH_REFUSALS_PER_MINUTE counts over. */
export const AUTH_REFUSAL_WINDOW_MS = 60_000;

type AuthRefused = Extract<AuditEntryInput, { kind: "auth_refused" }>;

/**
 * Anyone on this machine (a web page too) can knock on the socket or the ports; each refusal
 * is logged, but only AUTH_REFUSALS_PER_MINUTE a minute, so knocking cannot fill the
 * disk. The rest are counted: in auth_refusals_not_logged entries (see NotLoggedFlush: at the
 * first one left out, then at most once a window while more are, and at the stop), or, for
 * those left out since the last such entry, in the reason of the next refusal logged. Each
 * refusal left out is in exactly one of those counts. It does not wait for the next refusal
 * logged alone, which never comes if the knocking stops, and which a stop or a kill would lose:
 * the log would show 30 knocks where there were 10,000.
 */
export class RefusalLimiter {
  readonly #window: EntryWindow;
  readonly #notLogged: NotLoggedFlush;
  /** The transports of the refusals left out and not yet counted anywhere. */
  readonly #transports = new Set<AuthTransport>();

  constructor(
    private readonly record: (entry: AuditEntryInput) => void,
    now: () => number = Date.now,
  ) {
    const window = new EntryWindow(
      { logged: AUTH_REFUSALS_PER_MINUTE, windowMs: AUTH_REFUSAL_WINDOW_MS },
      now,
    );
    this.#window = window;
    this.#notLogged = new NotLoggedFlush(
      () => window.takeNotLogged(),
      (count) =>
        record({ kind: "auth_refusals_not_logged", count, transports: this.takeTransports() }),
      AUTH_REFUSAL_WINDOW_MS,
    );
  }

  /** Logs this refusal, or counts it when it is one too many this window. */
  refused(entry: AuthRefused): void {
    const dropped = this.#window.admit();
    if (dropped === null) {
      this.#transports.add(entry.transport);
      this.#notLogged.leftOut();
      return;
    }
    if (dropped === 0) {
      this.record(entry);
      return;
    }
    // Counted here, so no auth_refusals_not_logged entry tells them again.
    this.takeTransports();
    const reason = `${entry.reason} (and ${dropped} more refused before, not logged one by one)`;
    this.record({ ...entry, reason });
  }

  /** At the stop: the refusals left out of the log and not yet counted in it. */
  flush(): void {
    this.#notLogged.flush();
  }

  private takeTransports(): AuthTransport[] {
    const transports = [...this.#transports];
    this.#transports.clear();
    return transports;
  }
}
