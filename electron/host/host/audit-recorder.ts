import { createHash } from "node:crypto";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { BRIDGE_LIMITS, RUN_COST_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import { redactArgs } from "../audit/redaction.js";
import type { BridgeEvent, BridgeEventSink } from "../bridge/bridge-events.js";
import type { RunEvents } from "../engine/code-mode-engine.js";

/**
 * Turns what the bridge and the engine report into audit entries. Arguments of private
 * tools never reach the log, and values of secret env entries are replaced wherever they
 * appear. Calls refused past a run's budget are counted, and written as one entry before the
 * run's end.
 */
export class AuditRecorder implements BridgeEventSink, RunEvents {
  constructor(
    private readonly append: (entry: AuditEntryInput) => void,
    private readonly secrets: () => readonly string[],
  ) {}

  /** Per run in progress: calls past its budget, and a few of the names they called. */
  private readonly pastBudget = new Map<string, { count: number; tools: Set<string> }>();

  emit(event: BridgeEvent): void {
    if (event.kind === "past_budget") {
      let past = this.pastBudget.get(event.runId);
      if (past === undefined) {
        past = { count: 0, tools: new Set() };
        this.pastBudget.set(event.runId, past);
      }
      past.count += 1;
      if (past.tools.size < RUN_COST_LIMITS.notLoggedToolsShown) {
        past.tools.add(event.tool.slice(0, BRIDGE_LIMITS.eventNameMaxChars));
      }
      return;
    }
    if (event.kind === "taint") {
      this.append({
        kind: "taint_set",
        client: event.client,
        server: event.server,
        tool: event.tool,
      });
      return;
    }
    this.append({
      kind: "call",
      runId: event.runId,
      client: event.client,
      server: event.server ?? null,
      tool: event.tool,
      serverTool: event.serverTool ?? null,
      decision: event.decision,
      reason: event.reason ?? null,
      detail: event.detail ?? null,
      argBytes: event.argBytes,
      args:
        event.args === undefined
          ? null
          : redactArgs(event.args, { private: event.private, secrets: this.secrets() }),
      resultBytes: event.resultBytes ?? null,
      resultHash: event.resultHash ?? null,
      durationMs: event.durationMs,
      private: event.private,
    });
  }

  runStarted(run: { runId: string; client: string; code: string }): void {
    this.append({
      kind: "run_started",
      runId: run.runId,
      client: run.client,
      code: run.code,
      codeBytes: Buffer.byteLength(run.code),
      codeHash: createHash("sha256").update(run.code).digest("hex"),
    });
  }

  runFinished(run: { runId: string; client: string; result: RunResult }): void {
    const past = this.pastBudget.get(run.runId);
    this.pastBudget.delete(run.runId);
    if (past !== undefined) {
      this.append({
        kind: "calls_not_logged",
        runId: run.runId,
        client: run.client,
        cause: "call_budget",
        count: past.count,
        tools: [...past.tools],
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
    });
  }
}
