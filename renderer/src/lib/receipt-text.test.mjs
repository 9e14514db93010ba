// The receipt in words: how much less (or more) the model read than calling the tools one at a
// time, never a percentage. Plain JS so that the renderer's TypeScript program never sees Node
// types.
import { describe, expect, it } from "vitest";
import { receiptOf, imageContentBytes } from "../../../shared/run-receipt.ts";
import { receiptText, totalReceiptText } from "./receipt-text.ts";

const finished = (fields) => ({
  seq: 1,
  ts: "2026-12-04T19:00:00.000Z",
  prev: "0".repeat(64),
  kind: "run_finished",
  runId: "r1",
  client: "c",
  durationMs: 1,
  calls: 3,
  exitCode: 0,
  stopped: null,
  timedOut: false,
  truncated: false,
  error: null,
  stdoutBytes: 1,
  stderrBytes: 0,
  ...fields,
});

describe("receipt text", () => {
  it("says in plain words how much less the model read", () => {
    const r = { runTextBytes: 1300, oneByOneTextBytes: 36_100, images: 0 };
    expect(receiptText(r)).toBe(
      "About 34.8 KB less for the model to read than calling the tools one at a time (it read 1.3 KB instead of 36.1 KB).",
    );
  });

  it("a run that showed a chart is not waste: its image is counted apart", () => {
    // Before: "result 36.1 KB vs 1.3 KB one call at a time (2583.4 % more)".
    const png = 26_000;
    const entry = finished({
      resultBytes: 1250 + imageContentBytes(png),
      oneByOneBytes: 1300,
      images: [{ name: "chart.png", bytes: png, sha256: "a".repeat(64) }],
    });
    const text = receiptText(receiptOf(entry));
    expect(text).toBe(
      "About as much for the model to read as calling the tools one at a time (it read 1.3 KB instead of 1.3 KB; its image is shown to the model, not read as text).",
    );
    expect(text).not.toMatch(/%/);
  });

  it("says when the run gave the model more to read, and why", () => {
    const text = receiptText({ runTextBytes: 5000, oneByOneTextBytes: 1000, images: 0 });
    expect(text).toBe(
      "About 4.0 KB more for the model to read than calling the tools one at a time: the run's output was longer than what its calls returned (it read 5.0 KB instead of 1.0 KB).",
    );
  });

  it("totals the loaded runs", () => {
    expect(
      totalReceiptText({ runs: 2, runTextBytes: 500, oneByOneTextBytes: 250_000, images: 0 }),
    ).toBe(
      "2 loaded runs: about 250 KB less for the model to read than calling the tools one at a time",
    );
  });
});
