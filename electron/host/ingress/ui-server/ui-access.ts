// Who may use the browser UI. A link that opens it carries a ticket, not a lasting key: links
// reach the browser as process arguments (xdg-open, open, start), which every user of the
// machine can read, and stay in the browser's history. The page trades the ticket, once and
// within HOST_LIMITS.uiTicketTtlMs, for a session it keeps in its tab (sessionStorage, so a
// reload stays signed in) and that nothing ever puts in a URL or an argument. Sessions live
// until the host stops. Tickets are issued only to the host's own process (the daemon's
// printed link) and to a client that proved it holds the install's token on the local socket.
import { randomBytes } from "node:crypto";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { tokensEqual } from "../local-access/token.js";
import { OneTimeTickets, TICKET_BYTES } from "./one-time-tickets.js";

/** Browser mode: UI links not yet used; one more drops the oldest. */
export const UI_TICKETS_MAX = 8;

/** Browser mode: pages signed in with a link, until the host stops; one more ends the oldest. */
export const UI_SESSIONS_MAX = 64;

export class UiAccess {
  private readonly tickets: OneTimeTickets<true>;
  /** Oldest first. */
  private readonly sessions: string[] = [];

  constructor(now: () => number = Date.now) {
    this.tickets = new OneTimeTickets(
      { ttlMs: HOST_LIMITS.uiTicketTtlMs, max: UI_TICKETS_MAX },
      now,
    );
  }

  /** A ticket for one page to sign in with, once, before it expires. */
  issueTicket(): string {
    return this.tickets.issue(true);
  }

  /** A new session for a live ticket (used up by this); null for any other ticket. */
  exchange(ticket: string): string | null {
    if (this.tickets.take(ticket) === null) return null;
    while (this.sessions.length >= UI_SESSIONS_MAX) this.sessions.shift();
    const session = randomBytes(TICKET_BYTES).toString("hex");
    this.sessions.push(session);
    return session;
  }

  /** Whether `session` is one this host gave out; every one compared in constant time. */
  sessionValid(session: string): boolean {
    let valid = false;
    for (const known of this.sessions) {
      if (tokensEqual(session, known)) valid = true;
    }
    return valid;
  }
}
