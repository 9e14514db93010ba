import type { AuditEntryInput } from "../../../shared/audit-entry.js";

/**
 * Whether the audit log can be written. A failed append makes the host refuse runs (every run
 * must be on the record); this clears that state once an append succeeds again: a probe
 * appends an `audit_recovered` entry saying since when it failed, why, and how many entries
 * were lost meanwhile. One probe at a time; callers share it.
 */
export class AuditHealth {
  private failure: { error: string; since: Date; lost: number } | null = null;
  private probing: Promise<boolean> | null = null;

  constructor(
    private readonly append: (entry: AuditEntryInput) => Promise<unknown>,
    private readonly onChange: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The reason runs are refused, or null while the log can be written. */
  get error(): string | null {
    return this.failure?.error ?? null;
  }

  /** An append failed: the entry is lost, and runs are refused until a probe succeeds. */
  failed(error: unknown): void {
    if (this.failure !== null) {
      this.failure.lost += 1;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    this.failure = { error: message, since: this.now(), lost: 1 };
    this.onChange();
  }

  /** Tries to write again; true when the log is (again) writable. */
  probe(): Promise<boolean> {
    const failure = this.failure;
    if (failure === null) return Promise.resolve(true);
    this.probing ??= this.append({
      kind: "audit_recovered",
      failedSince: failure.since.toISOString(),
      error: failure.error,
      lost: failure.lost,
    })
      .then(
        () => {
          this.failure = null;
          this.onChange();
          return true;
        },
        () => false,
      )
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }
}
