// How the host writes to its audit log: every entry through record(), refused-connection
// floods folded by the refusal limiter, each append tracked until durable, and a log that
// cannot be written tried again on a timer until it can.
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import type { AuditLog } from "./audit-log.js";
import { Emitter } from "../util/emitter.js";
import { AuditHealth } from "./audit-health.js";
import { RefusalLimiter } from "./flood/refusal-limiter.js";

export interface HostAuditOptions {
  log?: ((line: string) => void) | undefined;
  /** How often to try the log again while it cannot be written. */
  probeMs: number;
}

export class HostAudit {
  readonly health: AuditHealth;
  // Its entries go straight to the log: the refusals it admits, and the counts of the rest.
  private readonly refusals = new RefusalLimiter((entry) => this.append(entry));
  private readonly pending = new Set<Promise<unknown>>();
  private probeTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly healthEvents = new Emitter<{ change: () => void }>();

  constructor(
    readonly log: AuditLog,
    private readonly options: HostAuditOptions,
  ) {
    this.health = new AuditHealth(
      (entry) => log.append(entry),
      () => {
        this.healthEvents.emit("change");
        this.watchHealth();
      },
    );
  }

  /** Why runs are refused because the audit log cannot be written; null while it can. */
  get failure(): string | null {
    return this.health.error;
  }

  /** Told when the log becomes unwritable, or writable again. */
  onHealthChange(listener: () => void): () => void {
    return this.healthEvents.on("change", listener);
  }

  record(entry: AuditEntryInput): void {
    if (entry.kind === "auth_refused") this.refusals.refused(entry);
    // A run's start waits for company (AuditLog.append's lazy): the run's answer waits for its
    // entries (durable), and a short run's start and end then share one durable write.
    else this.append(entry, entry.kind === "run_started");
  }

  /**
   * At the stop, once nothing can knock any more (listeners closed): the refusals left out of
   * the log and not yet counted in it. Its timer is stopped too.
   */
  flushRefusals(): void {
    this.refusals.flush();
  }

  private append(entry: AuditEntryInput, lazy = false): void {
    const pending = this.log.append(entry, lazy).catch((error: unknown) => {
      this.options.log?.(`audit append failed: ${String(error)}`);
      this.health.failed(error);
    });
    this.pending.add(pending);
    void pending.finally(() => this.pending.delete(pending));
  }

  /** Resolves when every entry recorded so far is durable (appends are group-committed). */
  async durable(): Promise<void> {
    // Someone waits: what is queued is written now, not at the end of the sync interval.
    this.log.flush();
    await Promise.allSettled([...this.pending]);
  }

  /** Stops the timer; the log itself is closed by its owner. */
  stop(): void {
    this.stopped = true;
    this.watchHealth();
  }

  /** While the log is failing, it is tried again on a timer too, not only when a run comes. */
  private watchHealth(): void {
    if (this.failure === null || this.stopped) {
      if (this.probeTimer) clearInterval(this.probeTimer);
      this.probeTimer = null;
      return;
    }
    this.probeTimer ??= setInterval(() => void this.health.probe(), this.options.probeMs);
    this.probeTimer.unref();
  }
}
