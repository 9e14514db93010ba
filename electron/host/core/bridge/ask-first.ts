import type { ApprovalGate } from "./approval-gate.js";
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
  const outcome = await approvals.ask({
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
  });
  if (outcome.answer === "cancelled" || run.signal.aborted) return { kind: "cancelled" };
  if (outcome.answer === "timeout") {
    return { kind: "refused", message: "the user denied this call (no answer in time)" };
  }
  if (outcome.answer === "deny") return { kind: "refused", message: "the user denied this call" };
  if (outcome.answer === "allow_run") run.allowedForRun.add(runKey);
  return { kind: "go" };
}
