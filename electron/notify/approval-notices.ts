// Desktop notifications for "ask first" calls: one per new question, never one per update of
// the list. Plain logic (no Electron import), so it is tested without Electron; main.ts gives
// it Electron's Notification.
import type { ApprovalView } from "../../shared/api/api-views.js";

export interface Notice {
  title: string;
  /** Names only: a notification can show on a locked screen, so no arguments and no code. */
  body: string;
}

export function approvalNotice(view: ApprovalView): Notice {
  return {
    title: "Code Mode: a call waits for your answer",
    body: `${view.client} wants to call ${view.tool} on ${view.server}. Click to answer.`,
  };
}

/**
 * Returns the listener for approvals.changed: `show` is called once for each request id not
 * seen before. Ids that stopped waiting are forgotten, so the set stays as small as the list.
 */
export function approvalNotifier(
  show: (notice: Notice, view: ApprovalView) => void,
): (views: ApprovalView[]) => void {
  let seen = new Set<string>();
  return (views) => {
    const next = new Set<string>();
    for (const view of views) {
      next.add(view.id);
      if (!seen.has(view.id)) show(approvalNotice(view), view);
    }
    seen = next;
  };
}
