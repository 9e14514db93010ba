import { createHash } from "node:crypto";
import type { AuditEntryInput, NOT_LOGGED_CAUSES } from "../../../shared/audit-entry.js";
import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import { redactArgs } from "../audit/redaction.js";
import type { BridgeEvent, BridgeEventSink } from "../bridge/bridge-events.js";
import { maskSecrets } from "../bridge/secret-mask.js";
import type { RunEvents } from "../engine/code-mode-engine.js";
import { runPythonContentBytes } from "../mcp/run-python-content.js";
import { Emitter } from "../util/emitter.js";

type NotLoggedCause = (typeof NOT_LOGGED_CAUSES)[number];

/** What one run in progress has cost the log so far. */
interface RunLedger {
  bytes: number;
  /** Set once the run's entries reached RUN_COST_LIMITS.auditBytesPerRun. */
  over: boolean;
  /** What the run's calls' results would have cost a client calling the tools one by one. */
  oneByOneBytes: number;
  notLogged: Map<NotLoggedCause, { count: number; tools: Set<string> }>;
}

export interface AuditRecorderOptions {
  auditBytesPerRun?: number;
}

/**
 * Turns what the bridge and the engine report into audit entries. Arguments of private
 * tools never reach the log, and values of secret env entries are replaced wherever they
 * appear. What one run may write is bounded: calls refused past its budget are counted, not
 * logged one by one, and once its entries reach the per-run cap its further calls are counted
 * too and the run is stopped. The counts go in one entry each, written before the run's end.
 */
export class AuditRecorder implements BridgeEventSink, RunEvents {
  private readonly runs = new Map<string, RunLedger>();
  private readonly overCap = new Emitter<{ overCap: (runId: string) => void }>();
  private readonly auditBytesPerRun: number;

  constructor(
    private readonly append: (entry: AuditEntryInput) => void,
    private readonly secrets: () => readonly string[],
    options: AuditRecorderOptions = {},
  ) {
    this.auditBytesPerRun = options.auditBytesPerRun ?? RUN_COST_LIMITS.auditBytesPerRun;
  }

  /** Told of a run whose entries reached the per-run cap (at most once per run): stop it. */
  onOverCap(listener: (runId: string) => void): () => void {
    return this.overCap.on("overCap", listener);
  }

  emit(event: BridgeEvent): void {
    if (event.kind === "past_budget") {
      this.countNotLogged(this.ledger(event.runId), "call_budget", event.tool);
      return;
    }
    if (event.kind === "taint") {
      // Never dropped: it says a client may have seen private data. At most once per client.
      this.append({
        kind: "taint_set",
        client: event.client,
        server: event.server,
        tool: event.tool,
      });
      return;
    }
    const ledger = this.ledger(event.runId);
    // Counted whether or not the call is logged: the receipt is of every result that came back.
    ledger.oneByOneBytes += event.oneByOneBytes ?? 0;
    if (ledger.over) {
      this.countNotLogged(ledger, "audit_limit", event.tool);
      return;
    }
    const entry: AuditEntryInput = {
      kind: "call",
      runId: event.runId,
      client: event.client,
      server: event.server ?? null,
      tool: event.tool,
      serverTool: event.serverTool ?? null,
      decision: event.decision,
      reason: event.reason ?? null,
      // A host fault's message can carry a server's stderr (a restart's last error): the log
      // keeps secrets out of it as it does of the arguments.
      detail: event.detail == null ? null : maskSecrets(event.detail, this.secrets()),
      argBytes: event.argBytes,
      args:
        event.args === undefined
          ? null
          : redactArgs(event.args, { private: event.private, secrets: this.secrets() }),
      resultBytes: event.resultBytes ?? null,
      resultHash: event.resultHash ?? null,
      durationMs: event.durationMs,
      private: event.private,
    };
    if (!this.charge(event.runId, ledger, entry)) {
      this.countNotLogged(ledger, "audit_limit", event.tool);
      return;
    }
    this.append(entry);
  }

  runStarted(run: { runId: string; client: string; code: string; runtime?: SandboxRuntime }): void {
    const entry: AuditEntryInput = {
      kind: "run_started",
      runId: run.runId,
      client: run.client,
      code: run.code,
      codeBytes: Buffer.byteLength(run.code),
      codeHash: createHash("sha256").update(run.code).digest("hex"),
      ...(run.runtime === undefined ? {} : { runtime: run.runtime }),
    };
    // The start is always logged (its code is cut to AUDIT_LIMITS.codeMaxBytes), and counts.
    this.charge(run.runId, this.ledger(run.runId), entry);
    this.append(entry);
  }

  runFinished(run: {
    runId: string;
    client: string;
    result: RunResult;
    runtime?: SandboxRuntime;
  }): void {
    const ledger = this.runs.get(run.runId);
    this.runs.delete(run.runId);
    for (const [cause, counted] of ledger?.notLogged ?? []) {
      this.append({
        kind: "calls_not_logged",
        runId: run.runId,
        client: run.client,
        cause,
        count: counted.count,
        tools: [...counted.tools],
      });
    }
    const r = run.result;
    this.append({
      kind: "run_finished",
      runId: run.runId,
      client: run.client,
      durationMs: r.duration_ms,
      calls: r.calls,
      exitCode: r.exit_code,
      stopped: r.stopped,
      timedOut: r.timed_out,
      truncated: r.truncated,
      error: r.error,
      stdoutBytes: Buffer.byteLength(r.stdout),
      stderrBytes: Buffer.byteLength(r.stderr),
      ...(r.images.length > 0
        ? { images: r.images.map(({ name, bytes, sha256 }) => ({ name, bytes, sha256 })) }
        : {}),
      ...(run.runtime === undefined ? {} : { runtime: run.runtime }),
      // The receipt: what the client was sent, against what the calls' results would have cost.
      resultBytes: runPythonContentBytes(r),
      oneByOneBytes: ledger?.oneByOneBytes ?? 0,
    });
  }

  private ledger(runId: string): RunLedger {
    let ledger = this.runs.get(runId);
    if (ledger === undefined) {
      ledger = { bytes: 0, over: false, oneByOneBytes: 0, notLogged: new Map() };
      this.runs.set(runId, ledger);
    }
    return ledger;
  }

  /**
   * Adds the entry's size to the run's; false (and the run asked to stop) when it would take
   * the run past its cap. The size is of the entry before the log cuts long fields: an upper
   * bound, so the cap holds for what is really written.
   */
  private charge(runId: string, ledger: RunLedger, entry: AuditEntryInput): boolean {
    const bytes = Buffer.byteLength(JSON.stringify(entry)) + RUN_COST_LIMITS.auditEntryHeaderBytes;
    if (ledger.bytes + bytes > this.auditBytesPerRun && entry.kind !== "run_started") {
      ledger.over = true;
      this.overCap.emit("overCap", runId);
      return false;
    }
    ledger.bytes += bytes;
    return true;
  }

  private countNotLogged(ledger: RunLedger, cause: NotLoggedCause, tool: string): void {
    let counted = ledger.notLogged.get(cause);
    if (counted === undefined) {
      counted = { count: 0, tools: new Set() };
      ledger.notLogged.set(cause, counted);
    }
    counted.count += 1;
    if (counted.tools.size < RUN_COST_LIMITS.notLoggedToolsShown) {
      counted.tools.add(tool.slice(0, BRIDGE_LIMITS.eventNameMaxChars));
    }
  }
}
