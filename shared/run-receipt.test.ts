import { describe, expect, it } from "vitest";
import type { AuditEntry, RunFinishedEntry } from "./audit-entry.js";
import { receiptOf, savingText, totalReceipt } from "./run-receipt.js";

function finished(seq: number, receipt?: { resultBytes: number; oneByOneBytes: number }) {
  return {
    seq,
    ts: "2026-01-01T00:00:00.000Z",
    prev: "0".repeat(64),
    kind: "run_finished",
    runId: `r${seq}`,
    client: "c",
    durationMs: 1,
    calls: 1,
    exitCode: 0,
    stopped: null,
    timedOut: false,
    truncated: false,
    error: null,
    stdoutBytes: 1,
    stderrBytes: 0,
    ...receipt,
  } satisfies RunFinishedEntry;
}

describe("run receipt", () => {
  it("has none for older entries and for runs whose calls got no result", () => {
    expect(receiptOf(finished(1))).toBeNull();
    expect(receiptOf(finished(2, { resultBytes: 300, oneByOneBytes: 0 }))).toBeNull();
    expect(receiptOf(finished(3, { resultBytes: 300, oneByOneBytes: 1000 }))).toEqual({
      resultBytes: 300,
      oneByOneBytes: 1000,
    });
  });

  it("totals the runs with a receipt and ignores the other entries", () => {
    const entries: AuditEntry[] = [
      finished(1, { resultBytes: 445, oneByOneBytes: 200_000 }),
      finished(2),
      finished(3, { resultBytes: 55, oneByOneBytes: 50_000 }),
      { ...finished(4), kind: "run_started", code: "", codeBytes: 0, codeHash: "0".repeat(64) },
    ];
    expect(totalReceipt(entries)).toEqual({ runs: 2, resultBytes: 500, oneByOneBytes: 250_000 });
    expect(totalReceipt([finished(5)])).toBeNull();
  });

  it("says the saving in percent, or the extra when the result was larger", () => {
    expect(savingText({ resultBytes: 445, oneByOneBytes: 200_000 })).toBe("99.8 % fewer");
    expect(savingText({ resultBytes: 300, oneByOneBytes: 1000 })).toBe("70.0 % fewer");
    expect(savingText({ resultBytes: 1120, oneByOneBytes: 1000 })).toBe("12.0 % more");
    expect(savingText({ resultBytes: 1000, oneByOneBytes: 1000 })).toBe("0.0 % fewer");
  });
});
