import type { HeldChange } from "../../servers/pins/pin-state.js";

/**
 * A server's held definitions logged one by one (a tool_held entry each) per
 * PIN_HELD_LOG_WINDOW_MS; the rest are counted in the next entry logged. A server can list 10,000
 * new tools after every list_changed it sends: unbounded, that filled the audit log until its
 * size cap removed the oldest files. Far above what an upgrade of a real server changes.
 */
export const PIN_HELD_LOGGED_PER_SERVER = 500;

/** The window PIN_HELD_LOGGED_PER_SERVER counts over. */
export const PIN_HELD_LOG_WINDOW_MS = 60 * 60_000;

/** A held definition to log, and how many of its server's were left out of the log before it. */
export interface HeldToLog {
  change: HeldChange;
  /** Set on the last entry logged from a listing when some were left out up to it. */
  notLogged?: number;
}

interface Window {
  start: number;
  logged: number;
  /** Left out since the last entry that carried a count. */
  dropped: number;
}

/**
 * A wrapped server decides what it lists, and can send list_changed with ten thousand new tools
 * each time: every one is held, but only PIN_HELD_LOGGED_PER_SERVER per server per
 * PIN_HELD_LOG_WINDOW_MS are logged one by one, so a server cannot fill the audit log (and
 * make its size cap remove the oldest files). The last entry logged from a listing, or the
 * first of a later window, says how many were left out; the held definitions themselves stay
 * held and listed for review, whether logged or not.
 */
export class HeldLogLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly now: () => number = Date.now) {}

  admit(server: string, changes: readonly HeldChange[]): HeldToLog[] {
    const now = this.now();
    let window = this.#windows.get(server);
    if (window === undefined) {
      window = { start: now, logged: 0, dropped: 0 };
      this.#windows.set(server, window);
    } else if (now - window.start >= PIN_HELD_LOG_WINDOW_MS) {
      window.start = now;
      window.logged = 0;
    }
    const out: HeldToLog[] = [];
    for (const change of changes) {
      if (window.logged < PIN_HELD_LOGGED_PER_SERVER) {
        window.logged++;
        out.push({ change });
      } else window.dropped++;
    }
    const last = out.at(-1);
    if (last !== undefined && window.dropped > 0) {
      last.notLogged = window.dropped;
      window.dropped = 0;
    }
    return out;
  }
}
