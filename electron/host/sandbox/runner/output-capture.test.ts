import { describe, expect, it } from "vitest";
import { cutToBytes, OutputCapture, tracebackTail } from "./output-capture.js";

describe("OutputCapture", () => {
  it("keeps the head up to the limit and counts everything", () => {
    const capture = new OutputCapture(5);
    capture.append("abc");
    capture.append("defgh");
    expect(capture.text).toBe("abcde");
    expect(capture.truncated).toBe(true);
    expect(capture.total).toBe(8);
  });

  it("never splits a multi-byte character", () => {
    expect(cutToBytes("a€b", 2)).toBe("a");
    expect(cutToBytes("a€b", 4)).toBe("a€");
  });
});

describe("tracebackTail", () => {
  it("keeps the last lines and bounds the characters", () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
    expect(tracebackTail(text, 2, 1000)).toBe("line 48\nline 49");
    expect(tracebackTail("x".repeat(100), 5, 10)).toHaveLength(10);
    expect(tracebackTail("a\nb \t\r\n\u00a0\u2028\n", 5, 100)).toBe("a\nb");
    expect(tracebackTail(" ".repeat(1000) + "x", 5, 10)).toBe("…" + " ".repeat(8) + "x");
  });
});
