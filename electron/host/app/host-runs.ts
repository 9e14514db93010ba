// run_python for every client: Docker must be there and the audit log writable, then the pause switch and the
// concurrency cap, then the engine; the client hears of the run only once its entries are on disk.
import type {
  CodeModeEngine,
  RunContext,
  RunPythonInput,
} from "../core/engine/code-mode-engine.js";
import { failureCode } from "../core/bridge/messages.js";
import { RunNotStarted } from "../core/engine/run-not-started.js";
import type { RunPythonService } from "../ingress/mcp/run-python-server.js";
import type { DockerOutages } from "../audit/flood/docker-outages.js";
import type { HostAudit } from "../audit/host-audit.js";
import type { RunGate } from "./run-gate.js";

/**
 * How long after a run's answer is written to its client the run's container waits to be
 * removed: the answer still crosses the shim to the client, two process wake-ups that the
 * engine's work of removing a container (on the same cores) slowed by about a millisecond
 * (bench/warm-start-trace.ts). The container has exited by then; this only delays its cleanup.
 */
export const REMOVAL_DELAY_AFTER_ANSWER_MS = 20;

export class HostRuns implements RunPythonService {
  constructor(
    private readonly engine: CodeModeEngine,
    private readonly gate: RunGate,
    private readonly audit: HostAudit,
    private readonly sandbox: { readonly unreachable: string | null },
    private readonly outages: Pick<DockerOutages, "refused">,
  ) {}

  description(): string {
    return this.engine.description();
  }

  onCatalogChange(listener: () => void): () => void {
    return this.engine.onCatalogChange(listener);
  }

  async run(input: RunPythonInput, context: RunContext) {
    // While Docker is away a run is refused at once, before it costs the log anything: a
    // client retrying in a loop is counted, not logged try by try.
    const away = this.sandbox.unreachable;
    if (away !== null) {
      this.outages.refused(context.client);
      throw new RunNotStarted(away);
    }
    // A log that failed may be writable again (space freed, permission back): try first.
    if (this.audit.failure !== null) await this.audit.health.probe();
    const failure = this.audit.failure;
    if (failure !== null) {
      // Every run must be on the record; without a log, no run.
      throw new RunNotStarted(
        `Code Mode is not running code: its audit log cannot be written${runRefusalCode(failure)}. Open Code Mode to see why.`,
      );
    }
    const release = await this.gate.enter(context.signal);
    let answered = (): void => undefined;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    try {
      return await this.engine.run(input, { ...context, answered: answer });
    } finally {
      release();
      // The client hears of a run (result or refusal) only once its entries are on disk:
      // nothing it was told about can be missing from the log after a crash.
      await this.audit.durable();
      // The answer is written to the client in this turn of the event loop; the container's
      // removal waits until it has reached the client too.
      setTimeout(answered, REMOVAL_DELAY_AFTER_ANSWER_MS).unref();
    }
  }
}

/** The failure's code for the client (it reaches the model), never its text: that names paths. */
function runRefusalCode(failure: string): string {
  const code = failureCode(failure);
  return code === null ? "" : ` (${code})`;
}
