import { RUN_COST_LIMITS } from "../../../../shared/limits.js";
import type { StopReason } from "../../../../shared/run-result.js";
import { MiB } from "../../util/units.js";

/**
 * Messages one run may send (output chunks, empty ones included, and calls): past this the
 * run is stopped (`message_limit`). Each costs the host a parse however small it is.
 */
export const MESSAGES_PER_RUN = 100_000;

/** A run whose code writes this much (stdout + stderr) is stopped. */
export const OUTPUT_STOP_BYTES = 1 * MiB;

/**
 * The run's error when the host stopped it: what stopped it, in words the model and the user
 * read, with the limit it reached.
 */
export function stopMessage(reason: StopReason, deadlineSeconds: number, detail?: string): string {
  switch (reason) {
    case "deadline":
      return `the run was stopped at its deadline of ${deadlineSeconds} s`;
    case "output_limit":
      return `the run was stopped after writing more than ${OUTPUT_STOP_BYTES} bytes of output`;
    case "protocol_violation":
      return `the run was stopped: ${detail ?? "the sandbox broke the protocol"}`;
    case "memory":
      return "the run was stopped: it used more memory than the sandbox allows";
    case "cancelled":
      return "the run was cancelled";
    case "call_budget":
      return "the run was stopped: it kept calling tools after its budget of calls was spent";
    case "message_limit":
      return `the run was stopped after sending more than ${MESSAGES_PER_RUN} messages (output chunks and calls)`;
    case "audit_limit":
      return `the run was stopped: its audit log entries reached ${RUN_COST_LIMITS.auditBytesPerRun} bytes`;
    case "check":
      return "the run was stopped before its first statement: its tool calls have mistakes";
    case "workspace_limit":
      return "the run was stopped: what it wrote in its workspace went past the workspace's size limit";
  }
}
