import { describe, expect, it } from "vitest";
import { APPROVAL_LIMITS } from "../../../../shared/limits.js";
import { DEFAULT_TOOLS, refused, setup, value } from "../../../../test-support/bridge-fixture.js";
import type { ApprovalGate, ApprovalOutcome, ApprovalRequest } from "./approval-gate.js";

/** A gate that asks before the named server tools and lets the test answer each question. */
function gate(asked: readonly string[]) {
  const questions: { request: ApprovalRequest; answer: (o: ApprovalOutcome) => void }[] = [];
  const approvals: ApprovalGate = {
    asksFirst: (server, tool) => asked.includes(`${server}.${tool}`),
    ask: (request) =>
      new Promise((resolve) => {
        questions.push({ request, answer: resolve });
        request.signal.addEventListener("abort", () => resolve({ answer: "cancelled", by: null }));
      }),
  };
  return { approvals, questions };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("ask first", () => {
  it("a call waits for the user; allowed it goes out, denied the code hears why", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run({ code: "await web__fetch({'url': 'x'})" });
    const first = run.call("web__fetch", { url: "x" });
    await tick();
    expect(s.caller.calls).toHaveLength(0);
    expect(questions[0]?.request).toMatchObject({
      client: "client-a",
      server: "web",
      tool: "fetch",
      pyName: "web__fetch",
      args: { url: "x" },
      code: "await web__fetch({'url': 'x'})",
    });
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    value(await first);
    expect(s.caller.calls).toHaveLength(1);

    // Allowed once means once: the next call asks again, and a denial reaches the code.
    const second = run.call("web__fetch", { url: "y" });
    await tick();
    questions[1]!.answer({ answer: "deny", by: "browser" });
    expect(refused(await second)).toBe("the user denied this call");
    const third = run.call("web__fetch", {});
    await tick();
    questions[2]!.answer({ answer: "timeout", by: null, waitedMs: 60_000 });
    expect(refused(await third)).toBe(
      "the call waited 60 s for the user's answer and was not answered, so it was not sent",
    );
    expect(s.caller.calls).toHaveLength(1);
    expect(s.callEvents().map((e) => e.decision)).toEqual(["allowed", "refused", "refused"]);
    // Tools without "ask first" never ask.
    value(await run.call("tracker__echo", {}));
    expect(questions).toHaveLength(3);
  });

  it("allowed for the rest of the run, the tool is not asked about again in that run only", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run();
    const first = run.call("web__fetch", {});
    await tick();
    questions[0]!.answer({ answer: "allow_run", by: "client" });
    value(await first);
    value(await run.call("web__fetch", {}));
    expect(questions).toHaveLength(1);
    const other = s.run().call("web__fetch", {});
    await tick();
    expect(questions).toHaveLength(2);
    questions[1]!.answer({ answer: "deny", by: "app" });
    refused(await other);
  });

  it("the taint rule refuses first, without asking", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run();
    value(await run.call("notes__read", {}));
    expect(refused(await run.call("web__fetch", {}))).toContain("only private tools");
    expect(questions).toHaveLength(0);
  });

  it("a client tainted while the call waited is refused after the answer", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run();
    const waiting = run.call("web__fetch", {});
    await tick();
    value(await run.call("notes__read", {}));
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    expect(refused(await waiting)).toContain("only private tools");
    expect(s.caller.calls.map((c) => c.tool)).toEqual(["read"]);
  });

  it("a tool marked private while its call waited is not sent, and taints nothing", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run();
    const waiting = run.call("web__fetch", { url: "x" });
    await tick();
    // The user marks web private and saves while the question is open, then allows the call.
    s.setTools(DEFAULT_TOOLS.map((t) => (t.server === "web" ? { ...t, private: true } : t)));
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    expect(refused(await waiting)).toContain("the tool changed while this call waited");
    expect(s.caller.calls).toHaveLength(0);
    expect(s.taint.isTainted("client-a")).toBe(false);
  });

  it("a tool left out or redefined while its call waited is not sent", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const run = s.run();
    const removed = run.call("web__fetch", {});
    await tick();
    s.setTools(DEFAULT_TOOLS.filter((t) => t.server !== "web"));
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    expect(refused(await removed)).toContain("the tool changed while this call waited");

    s.setTools(DEFAULT_TOOLS);
    const redefined = run.call("web__fetch", {});
    await tick();
    const strict = { type: "object", required: ["url"] };
    s.setTools(DEFAULT_TOOLS.map((t) => (t.server === "web" ? { ...t, schema: strict } : t)));
    questions[1]!.answer({ answer: "allow_once", by: "app" });
    expect(refused(await redefined)).toContain("the tool changed while this call waited");
    expect(s.caller.calls).toHaveLength(0);

    // A rebuild that changed nothing about the tool lets the waiting call go.
    s.setTools(DEFAULT_TOOLS);
    const unchanged = run.call("web__fetch", {});
    await tick();
    s.setTools(DEFAULT_TOOLS);
    questions[2]!.answer({ answer: "allow_once", by: "app" });
    value(await unchanged);
    expect(s.caller.calls).toHaveLength(1);
  });

  it("a call is not let out while the audit log cannot be written, nor after a wait for the user", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    let failure: string | null = null;
    const s = setup({ approvals, unwritable: () => failure });
    const run = s.run();
    const waiting = run.call("web__fetch", {});
    await tick();
    failure = "EFBIG: file too large, write '/home/u/.config/codemode/audit/x.jsonl'";
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    expect(refused(await waiting)).toBe(
      `"web__fetch" refused: Code Mode's audit log cannot be written (EFBIG), so no call goes ` +
        "out until it can.",
    );
    refused(await run.call("tracker__echo", {}));
    expect(s.caller.calls).toHaveLength(0);
    failure = null;
    value(await run.call("tracker__echo", {}));
  });

  it("a run that ends while a call waits sends nothing", async () => {
    const { approvals } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const controller = new AbortController();
    const waiting = s.run({ signal: controller.signal }).call("web__fetch", {});
    await tick();
    controller.abort();
    refused(await waiting);
    expect(s.caller.calls).toHaveLength(0);
  });

  it("the question closes before the run's deadline, and the run knows which calls wait", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals });
    const deadline: { left?: number } = {};
    const run = s.run({ timeLeftMs: () => deadline.left });
    // Before the deadline starts counting, the setting alone bounds the wait.
    const early = run.call("web__fetch", {});
    await tick();
    expect(questions[0]?.request.maxWaitMs).toBeUndefined();
    expect(run.waitingForUser()).toEqual(["web__fetch"]);
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    value(await early);
    expect(run.waitingForUser()).toEqual([]);
    // Then the run's time left, less the margin the code needs to hear the outcome.
    deadline.left = 10_000;
    const late = run.call("web__fetch", {});
    await tick();
    expect(questions[1]?.request.maxWaitMs).toBe(10_000 - APPROVAL_LIMITS.runDeadlineMarginMs);
    questions[1]!.answer({ answer: "timeout", by: null, waitedMs: 7_600, runDeadline: true });
    expect(refused(await late)).toBe(
      "the call waited 8 s for the user's answer and was not answered before the run's " +
        "deadline, so it was not sent. A question to the user lasts at most until the run's " +
        "deadline: calling the tool early in the run, and not lowering timeout_s, leaves the " +
        "user more time.",
    );
    expect(run.waitingForUser()).toEqual([]);
  });

  it("the wait does not count toward the call's timeout", async () => {
    const { approvals, questions } = gate(["web.fetch"]);
    const s = setup({ approvals, callTimeoutMs: 30 });
    const run = s.run();
    const waiting = run.call("web__fetch", {});
    await new Promise((resolve) => setTimeout(resolve, 80));
    questions[0]!.answer({ answer: "allow_once", by: "app" });
    value(await waiting);
  });
});
