import { APPROVAL_LIMITS } from "../../../../shared/limits.js";
import type { ApprovalGate, ApprovalOutcome } from "./approval-gate.js";
import type { CatalogTool } from "../catalog/catalog-types.js";
import type { StartRunOptions } from "./bridge-types.js";

/** What the "ask first" wait needs to know about the run a call belongs to. */
export interface AskingRun {
  runId: string;
  client: string;
  code: string;
  elicit: StartRunOptions["elicit"];
  /** Tools the user allowed for the rest of this run (server, then tool, joined by NUL). */
  allowedForRun: Set<string>;
  signal: AbortSignal;
  /** Milliseconds left before the run's deadline; undefined before it starts counting. */
  timeLeftMs: (() => number | undefined) | undefined;
  /** The calls waiting for the user's answer now: the name the code called, per call. */
  waiting: Map<object, string>;
}

/** How the user's answer ends the wait; the bridge turns it into the call's verdict. */
export type AskFirstDecision =
  { kind: "go" } | { kind: "cancelled" } | { kind: "refused"; message: string };

/**
 * Starts the "ask first" wait for a call, or returns undefined when none is needed (no
 * approvals, the tool does not ask, or the user allowed it for this run). The check is
 * synchronous on purpose: a call that needs no asking must not gain an `await`, so the
 * bridge's taint check and taint set stay in one synchronous stretch.
 */
export function askFirst(
  approvals: ApprovalGate | undefined,
  run: AskingRun,
  tool: CatalogTool,
  args: Record<string, unknown>,
): Promise<AskFirstDecision> | undefined {
  const runKey = `${tool.server}\0${tool.tool}`;
  if (
    approvals === undefined ||
    run.allowedForRun.has(runKey) ||
    !approvals.asksFirst(tool.server, tool.tool)
  ) {
    return undefined;
  }
  return wait(approvals, run, tool, args, runKey);
}

async function wait(
  approvals: ApprovalGate,
  run: AskingRun,
  tool: CatalogTool,
  args: Record<string, unknown>,
  runKey: string,
): Promise<AskFirstDecision> {
  const left = run.timeLeftMs?.();
  const waiting = {};
  run.waiting.set(waiting, tool.pyName);
  let outcome: ApprovalOutcome;
  try {
    outcome = await approvals.ask({
      runId: run.runId,
      client: run.client,
      server: tool.server,
      tool: tool.tool,
      pyName: tool.pyName,
      args,
      private: tool.private,
      code: run.code,
      elicit: run.elicit,
      signal: run.signal,
      maxWaitMs: left === undefined ? undefined : left - APPROVAL_LIMITS.runDeadlineMarginMs,
    });
  } finally {
    run.waiting.delete(waiting);
  }
  if (outcome.answer === "cancelled" || run.signal.aborted) return { kind: "cancelled" };
  if (outcome.answer === "timeout") return { kind: "refused", message: unanswered(outcome) };
  if (outcome.answer === "deny") return { kind: "refused", message: "the user denied this call" };
  if (outcome.answer === "allow_run") run.allowedForRun.add(runKey);
  return { kind: "go" };
}

/**
 * What the code hears of a question nobody answered: that the call waited for the user and was
 * not sent, and, when the run's deadline cut the wait short, what leaves the user more time.
 */
export function unanswered(outcome: Pick<ApprovalOutcome, "waitedMs" | "runDeadline">): string {
  const seconds = Math.round((outcome.waitedMs ?? 0) / 1000);
  if (outcome.runDeadline !== true) {
    return `the call waited ${seconds} s for the user's answer and was not answered, so it was not sent`;
  }
  const more =
    "A question to the user lasts at most until the run's deadline: calling the tool early " +
    "in the run, and not lowering timeout_s, leaves the user more time.";
  if ((outcome.waitedMs ?? 0) === 0) {
    return `the call was not sent: the run's deadline left too little time to ask the user. ${more}`;
  }
  return (
    `the call waited ${seconds} s for the user's answer and was not answered before the ` +
    `run's deadline, so it was not sent. ${more}`
  );
}
