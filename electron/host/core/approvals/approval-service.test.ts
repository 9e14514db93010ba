import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApprovalView } from "../../../../shared/api/api-views.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import {
  API_LIMITS,
  APPROVAL_LIMITS,
  BRIDGE_LIMITS,
  PROTOCOL_LIMITS,
  HOST_LIMITS,
} from "../../../../shared/limits.js";
import {
  ApprovalService,
  APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS,
  APPROVAL_ELICIT_MESSAGE_MAX_CHARS,
  APPROVAL_PENDING_MAX,
  APPROVAL_CODE_SHOWN_MAX_BYTES,
} from "./approval-service.js";
import type { ApprovalChoice, ApprovalRequest } from "../bridge/approval-gate.js";

const SECRET = "sk-live-abcdef123456";

function service(overrides: Partial<ConstructorParameters<typeof ApprovalService>[0]> = {}) {
  const entries: AuditEntryInput[] = [];
  const lists: ApprovalView[][] = [];
  const approvals = new ApprovalService({
    asksFirst: () => true,
    record: (entry) => entries.push(entry),
    changed: (views) => lists.push(views),
    secrets: () => [SECRET],
    timeoutSeconds: 60,
    ...overrides,
  });
  return { approvals, entries, lists };
}

function request(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    runId: "run-1",
    client: "claude-ai",
    server: "notes",
    tool: "delete",
    pyName: "notes__delete",
    args: { id: 7, token: SECRET },
    private: false,
    code: `await notes__delete({"id": 7, "token": "${SECRET}"})`,
    signal: new AbortController().signal,
    ...overrides,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("approval service", () => {
  it("waits for the user's answer and logs the request and who answered", async () => {
    const { approvals, entries, lists } = service();
    const asked = approvals.ask(request());
    const [view] = approvals.list();
    expect(view).toMatchObject({ client: "claude-ai", server: "notes", tool: "delete" });
    // Pretty-printed, secrets masked, in the arguments and in the code.
    expect(view?.args).toBe('{\n  "id": 7,\n  "token": "[secret]"\n}');
    expect(view?.code).not.toContain(SECRET);
    expect(lists.at(-1)).toHaveLength(1);

    expect(approvals.answer(view!.id, "allow_once", "browser")).toBe(true);
    await expect(asked).resolves.toEqual({ answer: "allow_once", by: "browser" });
    // A second answer finds nothing waiting.
    expect(approvals.answer(view!.id, "deny", "app")).toBe(false);
    expect(lists.at(-1)).toEqual([]);
    expect(entries.map((e) => e.kind)).toEqual(["approval_requested", "approval_answered"]);
    expect(entries[0]).toMatchObject({ args: '{"id":7,"token":"[secret]"}', elicited: false });
    expect(entries[1]).toMatchObject({
      answer: "allow_once",
      by: "browser",
      tool: "notes__delete",
    });
    expect(JSON.stringify(entries)).not.toContain(SECRET);
  });

  it("denies a request nobody answers within the setting's time", async () => {
    vi.useFakeTimers();
    const { approvals, entries } = service({ timeoutSeconds: 5 });
    const asked = approvals.ask(request());
    await vi.advanceTimersByTimeAsync(4_999);
    expect(approvals.list()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(asked).resolves.toEqual({ answer: "timeout", by: null, waitedMs: 5_000 });
    expect(entries.at(-1)).toMatchObject({
      kind: "approval_answered",
      answer: "timeout",
      by: null,
    });
    // A changed setting applies to the next request.
    approvals.setTimeoutSeconds(1);
    const next = approvals.ask(request());
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(next).resolves.toMatchObject({ answer: "timeout" });
  });

  it("says a question that timed out waited its whole time, though the timer fired early", async () => {
    vi.useFakeTimers();
    // The clock reads 1 ms short when the timer fires, as Node's rounding can make it.
    let clock = 1_000;
    const { approvals, entries } = service({ timeoutSeconds: 60, now: () => clock });
    const asked = approvals.ask(request());
    clock += 59_999;
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(asked).resolves.toMatchObject({ answer: "timeout", waitedMs: 60_000 });
    expect(entries.at(-1)).toMatchObject({ answer: "timeout", waitedMs: 60_000 });
    // Ended by the run's deadline, whose time left is fractional: whole milliseconds still.
    const start = clock;
    const bounded = approvals.ask(request({ maxWaitMs: 8_000.75 }));
    clock = start + 7_999;
    await vi.advanceTimersByTimeAsync(8_001);
    await expect(bounded).resolves.toMatchObject({ answer: "timeout", waitedMs: 8_000 });
    expect(entries.at(-1)).toMatchObject({ answer: "timeout", waitedMs: 8_000 });
  });

  it("never waits past the run's deadline: the question ends with it, saying so", async () => {
    vi.useFakeTimers();
    const { approvals, entries } = service({ timeoutSeconds: 60 });
    const asked = approvals.ask(request({ maxWaitMs: 8_000 }));
    const [view] = approvals.list();
    expect(Date.parse(view!.expiresAt) - Date.parse(view!.askedAt)).toBe(8_000);
    expect(view?.untilRunDeadline).toBe(true);
    await vi.advanceTimersByTimeAsync(8_000);
    await expect(asked).resolves.toEqual({
      answer: "timeout",
      by: null,
      waitedMs: 8_000,
      runDeadline: true,
    });
    expect(approvals.list()).toEqual([]);
    expect(entries.at(-1)).toMatchObject({ answer: "timeout", waitedMs: 8_000 });
    // A run with more time left than the setting: the setting bounds the wait.
    void approvals.ask(request({ maxWaitMs: 600_000 }));
    const [long] = approvals.list();
    expect(Date.parse(long!.expiresAt) - Date.parse(long!.askedAt)).toBe(60_000);
    expect(long?.untilRunDeadline).toBe(false);
    approvals.close();
  });

  it(`asks nobody when the run has less than ${APPROVAL_LIMITS.minWaitMs} ms left to wait`, async () => {
    const { approvals, entries, lists } = service();
    await expect(
      approvals.ask(request({ maxWaitMs: APPROVAL_LIMITS.minWaitMs - 1 })),
    ).resolves.toEqual({ answer: "timeout", by: null, waitedMs: 0, runDeadline: true });
    expect(lists).toEqual([]);
    expect(entries).toEqual([
      expect.objectContaining({ kind: "approval_answered", answer: "timeout", waitedMs: 0 }),
    ]);
  });

  it("withdraws the question when the run ends", async () => {
    const { approvals, entries } = service();
    const run = new AbortController();
    const asked = approvals.ask(request({ signal: run.signal }));
    run.abort();
    await expect(asked).resolves.toEqual({ answer: "cancelled", by: null });
    expect(approvals.list()).toEqual([]);
    expect(entries.at(-1)).toMatchObject({ answer: "cancelled" });
  });

  it("asks the client too; the first answer wins and the other side's question is withdrawn", async () => {
    const { approvals, entries } = service();
    let withdrawn: AbortSignal | null = null;
    let answerFromClient: (choice: ApprovalChoice | null) => void = () => undefined;
    const asked = approvals.ask(
      request({
        elicit: (message, signal) => {
          withdrawn = signal;
          expect(message).toContain("notes");
          expect(message).not.toContain(SECRET);
          return new Promise((resolve) => (answerFromClient = resolve));
        },
      }),
    );
    expect(approvals.list()[0]?.elicited).toBe(true);
    answerFromClient("deny");
    await expect(asked).resolves.toEqual({ answer: "deny", by: "client" });
    expect(entries[0]).toMatchObject({ elicited: true });
    expect(entries[1]).toMatchObject({ answer: "deny", by: "client" });

    // Answered in the app first: the client's question is withdrawn, its late answer ignored.
    const second = approvals.ask(
      request({
        elicit: (_message, signal) => {
          withdrawn = signal;
          return new Promise((resolve) => (answerFromClient = resolve));
        },
      }),
    );
    approvals.answer(approvals.list()[0]!.id, "allow_run", "app");
    await expect(second).resolves.toEqual({ answer: "allow_run", by: "app" });
    expect((withdrawn as AbortSignal | null)?.aborted).toBe(true);
    answerFromClient("deny");
    expect(entries.filter((e) => e.kind === "approval_answered")).toHaveLength(2);
  });

  it("keeps a private tool's arguments out of the client's question, not out of the log", async () => {
    const { approvals, entries } = service();
    let message = "";
    const asked = approvals.ask(
      request({
        private: true,
        args: { query: "salary of bob" },
        elicit: (text) => {
          message = text;
          return Promise.resolve("allow_once");
        },
      }),
    );
    await expect(asked).resolves.toMatchObject({ by: "client" });
    expect(message).not.toContain("salary");
    // The log says what was asked for: where the data is, not the data.
    expect(entries[0]).toMatchObject({ args: '{"query":"salary of bob"}' });
  });

  it("logs no arguments of a tool marked to hide them, and masks secrets in the rest", async () => {
    const { approvals, entries } = service({
      hidesArgs: (server, tool) => server === "notes" && tool === "write",
    });
    const hidden = approvals.ask(request({ tool: "write", args: { text: "dear diary" } }));
    const shown = approvals.ask(request());
    for (const view of approvals.list()) approvals.answer(view.id, "deny", "app");
    await Promise.all([hidden, shown]);
    const requested = entries.filter((e) => e.kind === "approval_requested");
    expect(requested.map((e) => e.args)).toEqual([null, '{"id":7,"token":"[secret]"}']);
  });

  it("a client that fails or cancels leaves the question to the app", async () => {
    const { approvals } = service();
    const failing = approvals.ask(request({ elicit: () => Promise.reject(new Error("gone")) }));
    const cancelling = approvals.ask(request({ elicit: () => Promise.resolve(null) }));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(approvals.list()).toHaveLength(2);
    for (const view of approvals.list()) approvals.answer(view.id, "deny", "app");
    await expect(failing).resolves.toEqual({ answer: "deny", by: "app" });
    await expect(cancelling).resolves.toEqual({ answer: "deny", by: "app" });
  });

  it(`denies at once past ${APPROVAL_PENDING_MAX} waiting requests`, async () => {
    const { approvals, entries } = service();
    const waiting = Array.from({ length: APPROVAL_PENDING_MAX }, () => approvals.ask(request()));
    await expect(approvals.ask(request())).resolves.toEqual({ answer: "deny", by: null });
    expect(entries.at(-1)).toMatchObject({ kind: "approval_answered", answer: "deny", by: null });
    approvals.close();
    for (const outcome of await Promise.all(waiting)) expect(outcome.answer).toBe("cancelled");
  });

  it("with nobody to ask (serve) and a client that cannot be asked, denies at once", async () => {
    const { approvals } = service({ userPresent: false });
    await expect(approvals.ask(request())).resolves.toEqual({ answer: "deny", by: null });
    const asked = approvals.ask(request({ elicit: () => Promise.resolve("allow_once") }));
    await expect(asked).resolves.toEqual({ answer: "allow_once", by: "client" });
  });

  it("cuts long arguments and code to their limits", () => {
    const { approvals } = service();
    const code = "y".repeat(10 * APPROVAL_CODE_SHOWN_MAX_BYTES);
    void approvals.ask(
      request({ args: { text: "x".repeat(10 * APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS) }, code }),
    );
    const [view] = approvals.list();
    expect([...view!.args].length).toBeLessThanOrEqual(APPROVAL_ARGS_SHOWN_WHOLE_MAX_CHARS);
    expect(Buffer.byteLength(view!.code)).toBeLessThanOrEqual(APPROVAL_CODE_SHOWN_MAX_BYTES);
    expect(view!.codeBytes).toBe(code.length);
    approvals.close();
  });

  it("cuts the code in its middle: filler at its start does not hide what it does", () => {
    // Attack: the code starts with a long comment, so the call it makes came after the cut and
    // the person deciding saw only the filler.
    const { approvals } = service();
    const intent = 'await notes__delete({"id": 7})  # the call being asked about';
    const code = `# ${"harmless ".repeat(4 * APPROVAL_CODE_SHOWN_MAX_BYTES)}\n${intent}\n`;
    void approvals.ask(request({ code }));
    const [view] = approvals.list();
    expect(view!.code).toContain(intent);
    expect(view!.code).toMatch(/\[… \d+ bytes left out …\]/);
    expect(view!.code.startsWith("# harmless")).toBe(true);
    approvals.close();
  });

  it("shows a call's arguments whole, however the code pads them: nothing hides past a cut", async () => {
    // Attack: the code puts a long harmless field first, so what the call really does came
    // after the 4 KiB the panel showed (2 KiB in the client's question), and was allowed unseen.
    const args = {
      path: "notes/today.md",
      note: "a harmless note ".repeat(900),
      and_then: "delete every note",
    };
    expect(JSON.stringify(args).length).toBeLessThan(BRIDGE_LIMITS.argsMaxBytes);
    const { approvals } = service();
    let asked = "";
    const answer = approvals.ask(
      request({
        args,
        elicit: (message) => {
          asked = message;
          return new Promise(() => undefined);
        },
      }),
    );
    const [view] = approvals.list();
    expect(view!.args).toBe(JSON.stringify(args));
    // The client is told the arguments do not fit its question, not shown their start alone.
    expect(asked).not.toContain("notes/today.md");
    expect(asked).toContain("too long to show here");
    expect([...asked].length).toBeLessThanOrEqual(APPROVAL_ELICIT_MESSAGE_MAX_CHARS);
    // Short arguments still read as pretty JSON, in the app and in the client's question.
    const short = approvals.ask(
      request({ args: { id: 7 }, elicit: (m) => ((asked = m), new Promise(() => undefined)) }),
    );
    expect(approvals.list()[1]!.args).toBe('{\n  "id": 7\n}');
    expect(asked).toContain('Arguments:\n{\n  "id": 7\n}');
    approvals.close();
    await Promise.all([answer, short]);
  });

  it("shows code points that hide or reorder text as escapes, in the panel and the client's question", async () => {
    // Attack: a right-to-left override makes "\u202e0.0001" read as 1000.0 in the panel (checked
    // in Chromium); zero-width, tag and other code points that show nothing hide what is there.
    // JSON.stringify leaves all of them as they are.
    const unseen = [
      "\u202e", // right-to-left override
      "\u2067", // right-to-left isolate
      "\u200b", // zero-width space
      "\u00ad", // soft hyphen
      "\u0085", // next line (C1 control)
      "\u2028", // line separator
      "\u3164", // Hangul filler
      "\ufe0f", // variation selector
      "\u{e0041}", // tag letter A
      "\u{f0000}", // private use
    ];
    const args = { amount: "\u202e0.0001", to: `alice${unseen.join("")}@example.com` };
    const { approvals } = service();
    let asked = "";
    const answer = approvals.ask(
      request({ args, elicit: (m) => ((asked = m), new Promise(() => undefined)) }),
    );
    const [view] = approvals.list();
    for (const text of [view!.args, asked]) {
      for (const char of unseen) expect(text).not.toContain(char);
    }
    // The panel says what is there, and its JSON is the call's arguments still.
    expect(view!.args).toContain('"amount": "\\u202e0.0001"');
    expect(view!.args).toContain("\\udb40\\udc41");
    expect(JSON.parse(view!.args)).toEqual(args);
    expect(asked).toContain(view!.args);
    // Honest text stays as it is: accents, other scripts, emoji.
    const honest = { text: "café, Straße, 東京, Москва, مرحبا, 👋🏽" };
    void approvals.ask(request({ args: honest }));
    expect(approvals.list()[1]!.args).toBe(JSON.stringify(honest, null, 2));
    approvals.close();
    await answer;
  });

  it("shows the run's code with bidi controls and invisible code points escaped", () => {
    // Trojan Source: the comment's isolates make the condition read as `if role != "none":`
    // followed by a comment, while the string really is "none\u202e \u2066: # admin only".
    const code =
      'role = "user"\nif role != "none\u202e \u2066": # admin only\u2069 \u2066\n    await notes__delete({"id": 7})';
    const { approvals } = service();
    void approvals.ask(request({ code }));
    const shown = approvals.list()[0]!.code;
    for (const char of ["\u202e", "\u2066", "\u2069"]) expect(shown).not.toContain(char);
    expect(shown).toContain('"none\\u202e \\u2066": # admin only\\u2069 \\u2066\n');
    approvals.close();
  });

  it("shows a __proto__ argument the server gets, with secrets configured", () => {
    // JSON.parse makes it an own key, and the server gets it; the masking copy set its
    // prototype instead, so the panel showed the call without it.
    const args = JSON.parse(
      '{"path":"notes.md","options":{"__proto__":{"isAdmin":true}}}',
    ) as Record<string, unknown>;
    const { approvals } = service();
    void approvals.ask(request({ args }));
    expect(approvals.list()[0]!.args).toContain('"__proto__": {');
    expect(JSON.parse(approvals.list()[0]!.args)).toEqual(args);
    approvals.close();
  });

  it("shows whole the longest arguments a call may carry, every code point escaped", () => {
    // 16 KiB of 4-byte code points that are shown as two 6-character escapes each.
    const chars = Math.floor((BRIDGE_LIMITS.argsMaxBytes - 16) / 4);
    const args = { a: "\u{e0041}".repeat(chars) };
    expect(Buffer.byteLength(JSON.stringify(args))).toBeLessThanOrEqual(BRIDGE_LIMITS.argsMaxBytes);
    const { approvals } = service();
    void approvals.ask(request({ args }));
    const [view] = approvals.list();
    expect(JSON.parse(view!.args)).toEqual(args);
    approvals.close();
  });

  it("keeps approvals.list under the API's reply cap at its largest: pendingMax requests, every field at its worst", () => {
    const { approvals } = service();
    // Control characters: JSON writes each as six (\u0001), the worst case for the reply's size.
    const worst = (chars: number): string => "\u0001".repeat(chars);
    const huge = worst(1024 * 1024);
    for (let i = 0; i <= APPROVAL_PENDING_MAX; i += 1) {
      void approvals
        .ask(
          request({
            runId: worst(64),
            client: worst(HOST_LIMITS.clientNameMaxChars),
            server: worst(API_LIMITS.serverNameMaxChars),
            // The catalog leaves out a tool whose Python name would pass this, so none is asked.
            tool: worst(PROTOCOL_LIMITS.toolNameMaxChars),
            pyName: worst(PROTOCOL_LIMITS.toolNameMaxChars),
            args: { a: huge },
            code: huge,
          }),
        )
        .catch(() => undefined);
    }
    const views = approvals.list();
    expect(views).toHaveLength(APPROVAL_PENDING_MAX);
    expect(JSON.stringify(views).length).toBeLessThan(API_LIMITS.responseMaxChars);
    approvals.close();
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ APPROVAL_PENDING_MAX }).toEqual({
      APPROVAL_PENDING_MAX: 64,
    });
  });
});
