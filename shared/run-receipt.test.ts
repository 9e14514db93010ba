import { describe, expect, it } from "vitest";
import type { AuditEntry, RunFinishedEntry } from "./audit-entry.js";
import {
  imageContentBytes,
  RECEIPT_SAME_BYTES,
  receiptOf,
  savedBytes,
  totalReceipt,
} from "./run-receipt.js";

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
      runTextBytes: 300,
      oneByOneTextBytes: 1000,
      images: 0,
    });
  });

  it("counts images apart on both sides: the model sees them, it does not read them", () => {
    // The case a user met: one chart of 26 KB, 1.3 KB of tool results.
    const png = 26_000;
    const entry = {
      ...finished(4, { resultBytes: 900 + imageContentBytes(png), oneByOneBytes: 1300 }),
      images: [{ name: "chart.png", bytes: png, sha256: "a".repeat(64) }],
    };
    expect(receiptOf(entry)).toEqual({ runTextBytes: 900, oneByOneTextBytes: 1300, images: 1 });
    // A tool that returned a screenshot: its base64 is left out of what would have been read.
    const seen = { ...finished(5, { resultBytes: 400, oneByOneBytes: 50_000 }) };
    expect(receiptOf({ ...seen, oneByOneMediaBytes: 48_000 })).toEqual({
      runTextBytes: 400,
      oneByOneTextBytes: 2000,
      images: 0,
    });
  });

  it("measures an image item as run_python's content holds it", () => {
    const item = {
      type: "image",
      data: "x".repeat(4 * Math.ceil(1000 / 3)),
      mimeType: "image/png",
    };
    expect(imageContentBytes(1000)).toBe(1 + JSON.stringify(item).length);
  });

  it("totals the runs with a receipt and ignores the other entries", () => {
    const entries: AuditEntry[] = [
      finished(1, { resultBytes: 445, oneByOneBytes: 200_000 }),
      finished(2),
      finished(3, { resultBytes: 55, oneByOneBytes: 50_000 }),
      { ...finished(4), kind: "run_started", code: "", codeBytes: 0, codeHash: "0".repeat(64) },
    ];
    expect(totalReceipt(entries)).toEqual({
      runs: 2,
      runTextBytes: 500,
      oneByOneTextBytes: 250_000,
      images: 0,
    });
    expect(totalReceipt([finished(5)])).toBeNull();
  });

  it("calls a difference under RECEIPT_SAME_BYTES none, and says which way it goes", () => {
    const receipt = (run: number, oneByOne: number) => ({
      runTextBytes: run,
      oneByOneTextBytes: oneByOne,
      images: 0,
    });
    expect(savedBytes(receipt(445, 200_000))).toBe(199_555);
    expect(savedBytes(receipt(5000, 1000))).toBe(-4000);
    expect(savedBytes(receipt(1000, 1000 + RECEIPT_SAME_BYTES - 1))).toBe(0);
    expect(savedBytes(receipt(209, 28))).toBe(0);
    expect(RECEIPT_SAME_BYTES).toBe(1000);
  });
});
