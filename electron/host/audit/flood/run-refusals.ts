import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";

/** Distinct client names kept in the one entry that counts runs refused while it was away. */
export const REFUSED_CLIENTS_SHOWN = 5;

type RunsRefused = Extract<AuditEntryInput, { kind: "runs_refused" }>;

/**
 * Counts runs refused at once while Docker is away, for one `runs_refused` entry when it is
 * back (or the app stops): a client that retries in a loop must not write an entry per try.
 */
export class RunRefusals {
  #count = 0;
  #firstAt: Date | null = null;
  #lastAt: Date | null = null;
  #clients = new Set<string>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  add(client: string): void {
    const at = this.now();
    this.#count += 1;
    this.#firstAt ??= at;
    this.#lastAt = at;
    if (this.#clients.size < REFUSED_CLIENTS_SHOWN) {
      this.#clients.add(client.slice(0, HOST_LIMITS.clientNameMaxChars));
    }
  }

  get count(): number {
    return this.#count;
  }

  /** The entry for the refusals counted so far (then starts over); null when there were none. */
  take(cause: RunsRefused["cause"]): RunsRefused | null {
    if (this.#count === 0 || this.#firstAt === null || this.#lastAt === null) return null;
    const entry: RunsRefused = {
      kind: "runs_refused",
      cause,
      count: this.#count,
      firstAt: this.#firstAt.toISOString(),
      lastAt: this.#lastAt.toISOString(),
      clients: [...this.#clients],
    };
    this.#count = 0;
    this.#firstAt = null;
    this.#lastAt = null;
    this.#clients = new Set();
    return entry;
  }
}
