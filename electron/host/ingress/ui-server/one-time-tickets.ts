// Random tickets that each work once, before they expire: the links that open the browser UI
// and the links that download the audit export. A ticket travels where others may see it (a
// browser's arguments, its history), so it is worth nothing once used or old.
import { randomBytes } from "node:crypto";
import { tokensEqual } from "../local-access/token.js";

/** Random bytes in a ticket (hex in the URL): as many as the install's token has. */
export const TICKET_BYTES = 32;

export interface TicketLimits {
  /** A ticket works until this long after it was issued. */
  ttlMs: number;
  /** Tickets not yet used; issuing one more drops the oldest. */
  max: number;
}

interface Ticket<T> {
  ticket: string;
  value: T;
  expires: number;
}

/** Tickets not yet used, oldest first, each carrying the value its use gives. */
export class OneTimeTickets<T> {
  private readonly tickets: Ticket<T>[] = [];

  constructor(
    private readonly limits: TicketLimits,
    private readonly now: () => number = Date.now,
  ) {}

  issue(value: T): string {
    this.prune();
    while (this.tickets.length >= this.limits.max) this.tickets.shift();
    const ticket = randomBytes(TICKET_BYTES).toString("hex");
    this.tickets.push({ ticket, value, expires: this.now() + this.limits.ttlMs });
    return ticket;
  }

  /**
   * The value of a live ticket, which this uses up; null for any other. Every live ticket is
   * compared in constant time, all of them every time, so timing says nothing about which
   * matched. Synchronous: two uses of one ticket at once cannot both get its value.
   */
  take(ticket: string): T | null {
    this.prune();
    let found = -1;
    this.tickets.forEach((t, index) => {
      if (tokensEqual(ticket, t.ticket)) found = index;
    });
    if (found < 0) return null;
    const [taken] = this.tickets.splice(found, 1);
    return taken!.value;
  }

  /** How many tickets are live now. */
  get size(): number {
    this.prune();
    return this.tickets.length;
  }

  private prune(): void {
    const now = this.now();
    while (this.tickets.length > 0 && this.tickets[0]!.expires <= now) this.tickets.shift();
  }
}
