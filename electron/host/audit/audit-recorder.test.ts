import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { AUDIT_LIMITS, BRIDGE_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import { prepareEntry } from "./audit-entry-prepare.js";
import type { BridgeCallAdmission, BridgeCallEvent } from "../core/bridge/bridge-events.js";
import { runPythonContent } from "../core/engine/run-python-content.js";
import {
  AuditRecorder,
  CALL_OUTCOME_MAX_BYTES,
  AUDIT_ENTRY_HEADER_BYTES,
  NOT_LOGGED_TOOLS_SHOWN,
  CALLED_TOOLS_NAMED,
} from "./audit-recorder.js";

const RESULT: RunResult = {
  stdout: "",
  stderr: "",
  error: "stopped",
  exit_code: null,
  truncated: false,
  timed_out: false,
  stopped: "call_budget",
  duration_ms: 5,
  calls: 20,
  images: [],
};

describe("AuditRecorder", () => {
  it("counts calls past the budget into one entry, written before the run's end", () => {
    const entries: AuditEntryInput[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
    );
    const names = ["a", "b", "c", "d", "e", "f", "g", "a"];
    for (const tool of names) {
      recorder.emit({ kind: "past_budget", runId: "r1", client: "c", tool, at: new Date() });
    }
    recorder.emit({ kind: "past_budget", runId: "r2", client: "c", tool: "x", at: new Date() });
    expect(entries).toEqual([]);
    recorder.runFinished({ runId: "r1", client: "c", result: RESULT });
    expect(entries.map((e) => e.kind)).toEqual(["calls_not_logged", "run_finished"]);
    expect(entries[0]).toEqual({
      kind: "calls_not_logged",
      runId: "r1",
      client: "c",
      cause: "call_budget",
      count: names.length,
      tools: names.slice(0, NOT_LOGGED_TOOLS_SHOWN),
    });
    // A run with no such calls gets no such entry; r2's count is still its own.
    recorder.runFinished({ runId: "r3", client: "c", result: RESULT });
    expect(entries.at(-1)?.kind).toBe("run_finished");
    recorder.runFinished({ runId: "r2", client: "c", result: RESULT });
    expect(entries.at(-2)).toMatchObject({ kind: "calls_not_logged", runId: "r2", count: 1 });
  });

  it("logs a private tool's arguments, masked, and none of a tool marked to hide them", () => {
    const entries: AuditEntryInput[] = [];
    const secret = "sk-live-0123456789abcdef";
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [secret],
      { hidesArgs: (server, tool) => server === "notes" && tool === "write_note" },
    );
    const call = (serverTool: string) =>
      recorder.emit({
        kind: "call",
        runId: "r1",
        client: "c",
        server: serverTool === "read_file" ? "fs" : "notes",
        tool: `x__${serverTool}`,
        serverTool,
        decision: "allowed",
        argBytes: 2,
        args: { path: "/home/me/salaries.csv", key: secret },
        durationMs: 0,
        private: true,
        at: new Date(),
      });
    call("read_file");
    call("write_note");
    const args = entries.flatMap((e) => (e.kind === "call" ? [e.args] : []));
    expect(args).toEqual(['{"path":"/home/me/salaries.csv","key":"[secret]"}', null]);
  });

  it("masks secrets in a call's detail (a server's last error carries its stderr)", () => {
    const entries: AuditEntryInput[] = [];
    const secret = "sk-live-0123456789abcdef";
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [secret],
    );
    recorder.emit({
      kind: "call",
      runId: "r1",
      client: "c",
      tool: "t",
      decision: "failed",
      reason: "t failed on the host side (WrappedServerError).",
      detail: `Server "s" did not come back; its last error: bad key ${secret}`,
      argBytes: 2,
      durationMs: 0,
      private: false,
      at: new Date(),
    });
    const call = entries.find(
      (e): e is Extract<AuditEntryInput, { kind: "call" }> => e.kind === "call",
    );
    const detail = call?.detail ?? "";
    expect(detail).toContain("bad key");
    expect(detail).not.toContain(secret);
  });

  it("stops a run whose entries reach the cap, counting its later calls instead", () => {
    const entries: AuditEntryInput[] = [];
    const stopped: string[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
      {
        auditBytesPerRun: 4_000,
      },
    );
    recorder.onOverCap((runId) => stopped.push(runId));
    recorder.runStarted({ runId: "r1", client: "c", code: "x" });
    const call = (i: number) =>
      recorder.emit({
        kind: "call",
        runId: "r1",
        client: "c",
        tool: `t${i % 7}`,
        decision: "refused",
        reason: "no",
        argBytes: 1_000,
        args: { text: "y".repeat(1_000) },
        durationMs: 0,
        private: false,
        at: new Date(),
      });
    for (let i = 0; i < 10; i++) call(i);
    const calls = entries.filter((e) => e.kind === "call");
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThan(4);
    const written = entries.reduce((sum, e) => sum + JSON.stringify(e).length + 128, 0);
    expect(written).toBeLessThanOrEqual(4_000);
    expect(stopped).toEqual(["r1"]);
    recorder.runFinished({
      runId: "r1",
      client: "c",
      result: { ...RESULT, stopped: "audit_limit" },
    });
    expect(entries.at(-2)).toMatchObject({
      kind: "calls_not_logged",
      cause: "audit_limit",
      count: 10 - calls.length,
    });
    expect(entries.at(-1)).toMatchObject({ kind: "run_finished", stopped: "audit_limit" });
  });

  it("records each image's name, size and hash in the run's end, never its bytes", () => {
    const entries: AuditEntryInput[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
    );
    const image = {
      name: "chart.png",
      bytes: 1234,
      sha256: "a".repeat(64),
      width: 640,
      height: 480,
    };
    recorder.runFinished({ runId: "r1", client: "c", result: { ...RESULT, images: [image] } });
    expect(entries[0]).toMatchObject({
      kind: "run_finished",
      images: [{ name: "chart.png", bytes: 1234, sha256: "a".repeat(64) }],
    });
    // A run without images adds no field: logs read by older versions look as before.
    recorder.runFinished({ runId: "r2", client: "c", result: RESULT });
    expect(entries[1]).not.toHaveProperty("images");
  });

  it("writes the run's receipt: its run_python content against its calls' results summed", () => {
    const entries: AuditEntryInput[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
      // So small that the calls are counted, not logged: the receipt still sums them all.
      { auditBytesPerRun: 1 },
    );
    const call = (oneByOneBytes?: number) =>
      recorder.emit({
        kind: "call",
        runId: "r1",
        client: "c",
        tool: "t",
        decision: "allowed",
        argBytes: 2,
        ...(oneByOneBytes === undefined ? {} : { oneByOneBytes }),
        durationMs: 0,
        private: false,
        at: new Date(),
      });
    call(1_000);
    call(); // no result came back (a refusal before the call went out)
    call(2_345);
    const result: RunResult = {
      ...RESULT,
      stdout: "é\n",
      images: [{ name: "a.png", bytes: 100, sha256: "0".repeat(64), width: 1, height: 1 }],
    };
    recorder.runFinished({ runId: "r1", client: "c", result });
    const png = Buffer.alloc(100, 7);
    // What run_python sends the client for this result.
    const sent = runPythonContent(result, [png]);
    expect(entries.at(-1)).toMatchObject({
      kind: "run_finished",
      resultBytes: Buffer.byteLength(JSON.stringify(sent)),
      oneByOneBytes: 3_345,
    });
    // No image or audio came back from the calls: nothing to count apart.
    expect(entries.at(-1)).not.toHaveProperty("oneByOneMediaBytes");
  });

  it("names the tools a run called with their counts, and the images its calls returned", () => {
    const entries: AuditEntryInput[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
    );
    const call = (tool: string, decision: "allowed" | "refused", media = 0) =>
      recorder.emit({
        kind: "call",
        runId: "r1",
        client: "c",
        tool,
        decision,
        argBytes: 2,
        oneByOneBytes: 10 + media,
        oneByOneMediaBytes: media,
        durationMs: 0,
        private: false,
        at: new Date(),
      });
    const tools = ["fs__read", "fs__read", "mem__graph", "a", "b", "c", "d", "fs__read"];
    tools.forEach((tool, i) => call(tool, i === 1 ? "refused" : "allowed", i === 2 ? 4_000 : 0));
    recorder.runFinished({ runId: "r1", client: "c", result: { ...RESULT, calls: tools.length } });
    expect(entries.at(-1)).toMatchObject({
      kind: "run_finished",
      // Refused calls count too: they are what the code tried. Past the named ones, only counted.
      calledTools: [
        { tool: "fs__read", calls: 3 },
        { tool: "mem__graph", calls: 1 },
        { tool: "a", calls: 1 },
        { tool: "b", calls: 1 },
        { tool: "c", calls: 1 },
      ].slice(0, CALLED_TOOLS_NAMED),
      oneByOneBytes: 10 * tools.length + 4_000,
      oneByOneMediaBytes: 4_000,
    });
  });

  it("records what the code raised as its type and message, beside the traceback", () => {
    const entries: AuditEntryInput[] = [];
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => [],
    );
    const traceback = "Traceback (most recent call last):\n    foo()\n    ^^^\nNameError: x";
    recorder.runFinished({
      runId: "r1",
      client: "c",
      result: {
        ...RESULT,
        stopped: null,
        exit_code: 1,
        error: traceback,
        exception: { type: "NameError", message: "name 'foo' is not defined" },
      },
    });
    expect(entries.at(-1)).toMatchObject({
      error: traceback,
      errorType: "NameError",
      errorMessage: "name 'foo' is not defined",
    });
    // A run that raised nothing has neither field, nor one that called nothing calledTools.
    recorder.runFinished({ runId: "r2", client: "c", result: RESULT });
    expect(entries.at(-1)).not.toHaveProperty("errorType");
    expect(entries.at(-1)).not.toHaveProperty("calledTools");
  });
});

/** A recorder writing into `entries`, with the run "r1" started, and what its start cost. */
function startedRecorder(auditBytesPerRun: number, secrets: string[] = []) {
  const entries: AuditEntryInput[] = [];
  const stopped: string[] = [];
  const recorder = new AuditRecorder(
    (entry) => entries.push(entry),
    () => secrets,
    { auditBytesPerRun },
  );
  recorder.onOverCap((runId) => stopped.push(runId));
  recorder.runStarted({ runId: "r1", client: "c", code: "x" });
  return { entries, stopped, recorder, startBytes: cost(entries[0]!) };
}

/** What an entry costs the allowance: its JSON as the log writes it, and the log's own fields. */
function cost(entry: AuditEntryInput): number {
  return Buffer.byteLength(JSON.stringify(entry)) + AUDIT_ENTRY_HEADER_BYTES;
}

const SEND: BridgeCallAdmission = {
  runId: "r1",
  client: "c",
  server: "mail",
  tool: "mail__send",
  serverTool: "send",
  argBytes: 40,
  args: { to: "boss@corp.example", body: "hello" },
  private: false,
};

function refusedCall(i: number, args: Record<string, unknown> = { pad: "x".repeat(1_000) }) {
  return {
    kind: "call" as const,
    runId: "r1",
    client: "c",
    tool: "made_up_tool",
    decision: "refused" as const,
    reason: `Unknown tool "made_up_tool" (${i}).`,
    argBytes: JSON.stringify(args).length,
    args,
    durationMs: 0,
    private: false,
    at: new Date(),
  };
}

function sentCall(reserved: number, outcome: Partial<BridgeCallEvent> = {}): BridgeCallEvent {
  return {
    ...SEND,
    kind: "call",
    decision: "allowed",
    resultBytes: 4,
    resultHash: "b".repeat(64),
    durationMs: 3,
    at: new Date(),
    reserved,
    ...outcome,
  };
}

describe("AuditRecorder: the run's audit allowance", () => {
  it("sets room aside for a call going out: refusals cannot use it, and the call is logged", () => {
    const { entries, stopped, recorder, startBytes } = startedRecorder(60_000);
    const reserved = recorder.reserve(SEND);
    expect(reserved).not.toBeNull();
    // Refusals fill what is left: the first that does not fit beside the room set aside stops
    // the run, and is counted, not logged.
    let refused = 0;
    while (stopped.length === 0) recorder.emit(refusedCall(refused++));
    const logged = entries.filter((e) => e.kind === "call");
    expect(logged).toHaveLength(refused - 1);
    const used = startBytes + logged.reduce((sum, e) => sum + cost(e), 0);
    expect(used + reserved!).toBeLessThanOrEqual(60_000);
    expect(used + reserved! + cost(entries[1]!)).toBeGreaterThan(60_000);
    // The call out comes back after its run's allowance was found used up: it is logged.
    recorder.emit(sentCall(reserved!));
    expect(entries.at(-1)).toMatchObject({ kind: "call", serverTool: "send", decision: "allowed" });
    // Nothing more is let out, and the refusal of it is counted.
    expect(recorder.reserve(SEND)).toBeNull();
    recorder.emit({ ...refusedCall(0), tool: "mail__send" });
    recorder.runFinished({
      runId: "r1",
      client: "c",
      result: { ...RESULT, stopped: "audit_limit" },
    });
    expect(entries.at(-2)).toMatchObject({
      kind: "calls_not_logged",
      cause: "audit_limit",
      count: 2,
      tools: ["made_up_tool", "mail__send"],
    });
    expect(stopped).toEqual(["r1"]);
  });

  it("refuses room it does not have, and stops the run", () => {
    const { stopped, recorder, startBytes } = startedRecorder(0);
    expect(startBytes).toBeGreaterThan(0);
    expect(recorder.reserve(SEND)).toBeNull();
    expect(stopped).toEqual(["r1"]);
    // Room for exactly one call's entry at its largest: one is let out, the next is not.
    const probe = startedRecorder(1_000_000);
    const one = probe.recorder.reserve(SEND)!;
    const exact = startedRecorder(probe.startBytes + one);
    expect(exact.recorder.reserve(SEND)).toBe(one);
    expect(exact.recorder.reserve(SEND)).toBeNull();
    // Once the first has ended, what it really cost is kept and the rest is free again.
    exact.recorder.emit(sentCall(one));
    const after = startedRecorder(probe.startBytes + one);
    after.recorder.reserve(SEND);
    after.recorder.emit(sentCall(one));
    expect(after.recorder.reserve(SEND)).toBeNull();
    expect(cost(after.entries.at(-1)!)).toBeLessThan(one);
  });

  it("reserves at least what the call's entry can take, whatever its outcome", () => {
    // The longest outcome: a reason and a host detail at the bridge's cut, made of characters
    // the log escapes to six bytes each, and the largest numbers.
    const worst = "\u0001".repeat(BRIDGE_LIMITS.refusalMaxChars);
    const args = { body: '"'.repeat(BRIDGE_LIMITS.argsMaxBytes) };
    const { entries, recorder } = startedRecorder(1_000_000);
    const reserved = recorder.reserve({ ...SEND, args })!;
    recorder.emit(
      sentCall(reserved, {
        args,
        decision: "failed",
        reason: worst,
        detail: worst,
        resultBytes: Number.MAX_SAFE_INTEGER,
        durationMs: Number.MAX_VALUE / 3,
      }),
    );
    const written = entries.at(-1)!;
    expect(written).toMatchObject({ reason: worst, detail: worst });
    expect(cost(written)).toBeLessThanOrEqual(reserved);
    expect(reserved - cost(written)).toBeLessThan(CALL_OUTCOME_MAX_BYTES);
  });

  it("masks and cuts a let-out call's arguments once, when it is let out", () => {
    const entries: AuditEntryInput[] = [];
    let asked = 0;
    const recorder = new AuditRecorder(
      (entry) => entries.push(entry),
      () => {
        asked += 1;
        return ["sk-live-0123456789"];
      },
    );
    const args = { body: `key sk-live-0123456789 ${"x".repeat(10_000)}` };
    const reserved = recorder.reserve({ ...SEND, args })!;
    recorder.emit(sentCall(reserved, { args }));
    expect(asked).toBe(1);
    const logged = entries.at(-1);
    expect(logged?.kind === "call" && logged.args).toContain('"body":"key [secret] xxx');
  });

  it("charges a refused call with huge arguments what its logged form costs, not more", () => {
    // Arguments far over what is logged of them: the entry keeps AUDIT_LIMITS.argsMaxBytes.
    const args = { pad: "x".repeat(16 * 1024), to: "boss@corp.example" };
    const probe = startedRecorder(1_000_000);
    probe.recorder.emit(refusedCall(1, args));
    const logged = probe.entries.at(-1)!;
    expect(logged.kind === "call" && Buffer.byteLength(logged.args ?? "")).toBeLessThanOrEqual(
      AUDIT_LIMITS.argsMaxBytes,
    );
    // The log writes it as it is: nothing left to cut or mask.
    expect(JSON.stringify(prepareEntry(logged, []))).toBe(JSON.stringify(logged));
    // An allowance of exactly the start and that entry takes it; one byte less does not.
    const exact = startedRecorder(probe.startBytes + cost(logged));
    exact.recorder.emit(refusedCall(1, args));
    expect(exact.entries.map((e) => e.kind)).toEqual(["run_started", "call"]);
    const short = startedRecorder(probe.startBytes + cost(logged) - 1);
    short.recorder.emit(refusedCall(1, args));
    expect(short.entries.map((e) => e.kind)).toEqual(["run_started"]);
  });

  it("logs the code's start and end, cut in the middle, with its length and hash", () => {
    const { entries, recorder } = startedRecorder(1_000_000);
    const code = `${"# filler\n".repeat(10_000)}send_everything()\n`;
    recorder.runStarted({ runId: "r2", client: "c", code });
    const started = entries.at(-1)!;
    expect(started.kind).toBe("run_started");
    if (started.kind !== "run_started") return;
    expect(Buffer.byteLength(started.code)).toBeLessThanOrEqual(AUDIT_LIMITS.codeMaxBytes);
    expect(started.code.startsWith("# filler\n")).toBe(true);
    expect(started.code.endsWith("send_everything()\n")).toBe(true);
    expect(started.code).toContain("bytes left out");
    expect(started.codeBytes).toBe(Buffer.byteLength(code));
  });
});
