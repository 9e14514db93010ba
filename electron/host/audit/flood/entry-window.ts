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
    this.roll();
    if (this.#logged >= this.bound.logged) {
      this.#dropped++;
      return null;
    }
    this.#logged++;
    return this.takeNotLogged();
  }

  /**
   * An event admit() left out that is logged after all, now that a window has room: a state
   * that began past the bound and still lasts (a cap held) must not stay off the log for as
   * long as it lasts. Null while there is still no room; else how many others were left out
   * before it (it is no longer counted among them).
   */
  readmit(): number | null {
    this.roll();
    if (this.#logged >= this.bound.logged) return null;
    this.#logged++;
    this.#dropped = Math.max(0, this.#dropped - 1);
    return this.takeNotLogged();
  }

  private roll(): void {
    const now = this.now();
    if (now - this.#windowStart >= this.bound.windowMs) {
      this.#windowStart = now;
      this.#logged = 0;
    }
  }

  /** The events left out and not yet counted on a logged one (0: none); counted from 0 again. */
  takeNotLogged(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }
}
