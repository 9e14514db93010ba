// What the bridge asks of "ask first": the approval service (core/approvals) answers through
// this gate, so the bridge depends on the shape only.
import type { ApprovalAnswer, Approver } from "../../../../shared/audit-entry.js";

/** What the user can choose. */
export type ApprovalChoice = Extract<ApprovalAnswer, "allow_once" | "allow_run" | "deny">;

/**
 * Asks the client (MCP elicitation); resolves with the client's choice, or null when the client
 * gave none (it cancelled, failed, or the question was withdrawn).
 */
export type Elicit = (message: string, signal: AbortSignal) => Promise<ApprovalChoice | null>;

export interface ApprovalRequest {
  runId: string;
  client: string;
  server: string;
  /** The server's own name for the tool. */
  tool: string;
  /** The name the code called. */
  pyName: string;
  args: Record<string, unknown>;
  private: boolean;
  /** The run's code, shown collapsed beside the question. */
  code: string;
  /** Present when the client supports elicitation. */
  elicit?: Elicit | undefined;
  /** The run's signal: a run that ends withdraws its questions. */
  signal: AbortSignal;
  /**
   * How long the run has left before its deadline, less the margin the code needs to hear the
   * outcome (APPROVAL_LIMITS.runDeadlineMarginMs); absent when it has no deadline yet.
   */
  maxWaitMs?: number | undefined;
}

export interface ApprovalOutcome {
  answer: ApprovalAnswer;
  by: Approver | null;
  /** For a "timeout": how long the question waited. */
  waitedMs?: number;
  /** For a "timeout": the run's deadline, not the setting, ended the wait. */
  runDeadline?: boolean;
}

/** What decides calls: the bridge asks through this. */
export interface ApprovalGate {
  /** Whether the config asks before calls to this tool (server's own name). */
  asksFirst(server: string, tool: string): boolean;
  ask(request: ApprovalRequest): Promise<ApprovalOutcome>;
}
