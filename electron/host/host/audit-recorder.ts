import { createHash } from "node:crypto";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import type { RunResult } from "../../../shared/run-result.js";
import { redactArgs } from "../audit/redaction.js";
import type { BridgeEvent, BridgeEventSink } from "../bridge/bridge-events.js";
import type { RunEvents } from "../engine/code-mode-engine.js";

/**
 * Turns what the bridge and the engine report into audit entries. Arguments of private
 * tools never reach the log, and values of secret env entries are replaced wherever they
 * appear.
 */
export class AuditRecorder implements BridgeEventSink, RunEvents {
  constructor(
    private readonly append: (entry: AuditEntryInput) => void,
    private readonly secrets: () => readonly string[],
  ) {}

  emit(event: BridgeEvent): void {
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
