import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { Approver } from "../../../../shared/audit-entry.js";
import type { ApprovalService } from "../../core/approvals/approval-service.js";

export type ApprovalServices = Pick<ApprovalService, "list" | "answer">;

/**
 * The approval panel's channels. `by` is the face the handlers serve (the app's IPC, the
 * browser's WebSocket), so the log says where an answer came from without trusting the page.
 */
export function approvalHandlers(
  approvals: ApprovalServices,
  by: Extract<Approver, "app" | "browser">,
): Pick<ApiHandlers, "approvals.list" | "approvals.answer"> {
  return {
    "approvals.list": () => approvals.list(),
    "approvals.answer": ({ id, answer }) => ({ answered: approvals.answer(id, answer, by) }),
  };
}
