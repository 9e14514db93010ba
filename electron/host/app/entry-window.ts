/** How many entries of one kind a window logs one by one, and how long the window is. */
export interface EntryBound {
  logged: number;
  windowMs: number;
}

/**
 * How the host keeps a flood out of its audit log without losing count of it: up to
 * `bound.logged` events per window are logged one by one; the rest are only counted, and the
 * next one logged says how many were left out before it. Refused connections, client
 * connections, loopback connection caps and cut-off connections each go through one.
 */
export class EntryWindow {
  #windowStart = 0;
  #logged = 0;
  #dropped = 0;

  constructor(
    private readonly bound: EntryBound,
    private readonly now: () => number = Date.now,
  ) {}

  /** Null when this event is not logged; else how many were left out before it (0: none). */
  admit(): number | null {
    const now = this.now();
    if (now - this.#windowStart >= this.bound.windowMs) {
      this.#windowStart = now;
      this.#logged = 0;
    }
    if (this.#logged >= this.bound.logged) {
      this.#dropped++;
      return null;
    }
    this.#logged++;
    return this.takeNotLogged();
  }

  /** The events left out and not yet counted on a logged one (0: none); counted from 0 again. */
  takeNotLogged(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }
}
