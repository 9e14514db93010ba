import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../shared/limits.js";

type AuthRefused = Extract<AuditEntryInput, { kind: "auth_refused" }>;

/**
 * Anyone on this machine (a web page too) can knock on the socket or the ports; each refusal
 * is logged, but only HOST_LIMITS.authRefusalsPerMinute a minute, so knocking cannot fill the
 * disk. The first refusal logged after some were dropped says how many.
 */
export class RefusalLimiter {
  #windowStart = 0;
  #count = 0;
  #dropped = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The entry to log for this refusal, or null when it is one too many this minute. */
  admit(entry: AuthRefused): AuthRefused | null {
    const now = this.now();
    if (now - this.#windowStart > HOST_LIMITS.authRefusalWindowMs) {
      this.#windowStart = now;
      this.#count = 0;
    }
    if (++this.#count > HOST_LIMITS.authRefusalsPerMinute) {
      this.#dropped++;
      return null;
    }
    if (this.#dropped === 0) return entry;
    const reason = `${entry.reason} (and ${this.#dropped} more refused before, not logged one by one)`;
    this.#dropped = 0;
    return { ...entry, reason };
  }
}
