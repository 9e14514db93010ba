import { describe, expect, it } from "vitest";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { RUN_COST_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import { runPythonContent } from "../mcp/run-python-content.js";
import { AuditRecorder } from "./audit-recorder.js";

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
      tools: names.slice(0, RUN_COST_LIMITS.notLoggedToolsShown),
    });
    // A run with no such calls gets no such entry; r2's count is still its own.
    recorder.runFinished({ runId: "r3", client: "c", result: RESULT });
    expect(entries.at(-1)?.kind).toBe("run_finished");
    recorder.runFinished({ runId: "r2", client: "c", result: RESULT });
    expect(entries.at(-2)).toMatchObject({ kind: "calls_not_logged", runId: "r2", count: 1 });
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
  });
});
