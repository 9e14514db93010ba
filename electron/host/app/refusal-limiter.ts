import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../shared/limits.js";
import { EntryWindow } from "./entry-window.js";

type AuthRefused = Extract<AuditEntryInput, { kind: "auth_refused" }>;

/**
 * Anyone on this machine (a web page too) can knock on the socket or the ports; each refusal
 * is logged, but only HOST_LIMITS.authRefusalsPerMinute a minute, so knocking cannot fill the
 * disk. The first refusal logged after some were dropped says how many.
 */
export class RefusalLimiter {
  readonly #window: EntryWindow;

  constructor(now: () => number = Date.now) {
    this.#window = new EntryWindow(
      { logged: HOST_LIMITS.authRefusalsPerMinute, windowMs: HOST_LIMITS.authRefusalWindowMs },
      now,
    );
  }

  /** The entry to log for this refusal, or null when it is one too many this minute. */
  admit(entry: AuthRefused): AuthRefused | null {
    const dropped = this.#window.admit();
    if (dropped === null) return null;
    if (dropped === 0) return entry;
    const reason = `${entry.reason} (and ${dropped} more refused before, not logged one by one)`;
    return { ...entry, reason };
  }
}
