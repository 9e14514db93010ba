import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import type { CAPPED_SERVERS } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { EntryWindow } from "./entry-window.js";
import type { ConnectionCapWatcher } from "../../util/connection-cap.js";

/**
 * Times a loopback HTTP server's connection cap was reached that are logged per
 * CONNECTION_CAP_WINDOW_MS (connections_capped, then connections_uncapped when it clears); the
 * rest are counted, with the connections they refused, in the next one logged. A process
 * holding the cap and letting one connection go in a loop would otherwise log each turn.
 */
export const CONNECTION_CAP_EPISODES_LOGGED = 5;

/** The window CONNECTION_CAP_EPISODES_LOGGED counts over. */
export const CONNECTION_CAP_WINDOW_MS = 60_000;

type CappedServer = (typeof CAPPED_SERVERS)[number];

/**
 * The audit entries of a loopback HTTP server at its cap of open connections
 * (HOST_LIMITS.httpConnectionsMax): one when it is reached (connections_capped), one when it
 * clears (connections_uncapped), each saying how many connections were refused. Any local
 * process can hold the cap and lock every real client out, so the user must see it. A
 * process letting one connection go and taking it back in a loop reaches the cap again each
 * turn, so only CONNECTION_CAP_EPISODES_LOGGED times a window are logged, the rest
 * counted in the next one logged; a clearing is logged only when its reaching was. A time at
 * the cap left out that still lasts when the window has room is logged then, at its next
 * refusal: a loop of short turns must not hide the long hold that follows it.
 */
export class ConnectionCapLog implements ConnectionCapWatcher {
  readonly #window: EntryWindow;
  #capped = false;
  #episodeLogged = false;
  #cappedAt = 0;
  /** Connections refused and not yet counted in an entry. */
  #refused = 0;

  constructor(
    private readonly server: CappedServer,
    private readonly record: (entry: AuditEntryInput) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.#window = new EntryWindow(
      {
        logged: CONNECTION_CAP_EPISODES_LOGGED,
        windowMs: CONNECTION_CAP_WINDOW_MS,
      },
      now,
    );
  }

  /** A connection ended, `open` left: below the cap, a time at it is over. */
  ended(open: number): void {
    if (open < HOST_LIMITS.httpConnectionsMax) this.cleared();
  }

  /** The ConnectionCap closed a connection (the oldest without the token) to admit a new one. */
  closedOne(): void {
    this.#refused++;
    if (this.#capped) {
      // Reached while the window was full: logged at the first refusal the window has room
      // for. Else a loop of short turns at the cap, then a hold of it, kept the hold (the
      // real lockout) off the log for as long as it lasted, and its length for good.
      if (!this.#episodeLogged) this.logCapped(this.#window.readmit());
      return;
    }
    this.#capped = true;
    this.#cappedAt = this.now();
    this.logCapped(this.#window.admit());
  }

  /** `notLogged`: the EntryWindow's answer for this time at the cap (null: not logged). */
  private logCapped(notLogged: number | null): void {
    this.#episodeLogged = notLogged !== null;
    if (notLogged === null) return;
    this.record({
      kind: "connections_capped",
      server: this.server,
      max: HOST_LIMITS.httpConnectionsMax,
      refused: this.#refused,
      ...(notLogged > 0 ? { notLogged } : {}),
    });
    this.#refused = 0;
  }

  private cleared(): void {
    if (!this.#capped) return;
    this.#capped = false;
    if (!this.#episodeLogged) return;
    this.record({
      kind: "connections_uncapped",
      server: this.server,
      max: HOST_LIMITS.httpConnectionsMax,
      refused: this.#refused,
      durationMs: Math.max(0, this.now() - this.#cappedAt),
    });
    this.#refused = 0;
  }
}
