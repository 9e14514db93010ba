import { describe, expect, it } from "vitest";
import type { ApprovalView } from "../../shared/api/api-views.js";
import { approvalNotifier } from "./approval-notices.js";

function view(id: string): ApprovalView {
  return {
    id,
    runId: "run-1",
    client: "claude-ai",
    server: "notes",
    tool: "delete_note",
    pyName: "notes__delete_note",
    args: '{\n  "id": "secret-looking"\n}',
    code: "await notes__delete_note({})",
    codeBytes: 28,
    private: false,
    askedAt: "2026-12-02T00:00:00.000Z",
    expiresAt: "2026-12-02T00:01:00.000Z",
    untilRunDeadline: false,
    elicited: false,
  };
}

describe("approval notices", () => {
  it("notifies once per new request, naming client, server and tool but no arguments", () => {
    const shown: string[] = [];
    const bodies: string[] = [];
    const changed = approvalNotifier((notice, v) => {
      shown.push(v.id);
      bodies.push(notice.body);
    });
    changed([view("a")]);
    changed([view("a"), view("b")]);
    changed([view("b")]);
    changed([]);
    expect(shown).toEqual(["a", "b"]);
    expect(bodies[0]).toBe("claude-ai wants to call delete_note on notes. Click to answer.");
    expect(bodies.join("\n")).not.toContain("secret-looking");
  });
});
