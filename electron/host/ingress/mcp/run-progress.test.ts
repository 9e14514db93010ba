import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { startRunProgress, type ProgressSink } from "./run-progress.js";

function sink(): ProgressSink & { sent: { progressToken: unknown; progress: number }[] } {
  const sent: { progressToken: unknown; progress: number }[] = [];
  return {
    sent,
    sendNotification: (notification) => {
      sent.push(notification.params);
      return Promise.resolve();
    },
  };
}

describe("startRunProgress", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends growing progress every interval to a request with a progressToken, until stopped", () => {
    const out = sink();
    const stop = startRunProgress({ progressToken: "t1" }, out);
    vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs - 1);
    expect(out.sent).toEqual([]);
    vi.advanceTimersByTime(1);
    vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs * 2);
    expect(out.sent.map((p) => [p.progressToken, p.progress])).toEqual([
      ["t1", 1],
      ["t1", 2],
      ["t1", 3],
    ]);
    stop();
    vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs * 3);
    expect(out.sent).toHaveLength(3);
  });

  it("keeps a numeric token as a number", () => {
    const out = sink();
    const stop = startRunProgress({ progressToken: 7 }, out);
    vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs);
    stop();
    expect(out.sent[0]?.progressToken).toBe(7);
  });

  it("sends nothing without a well-formed token", () => {
    for (const meta of [undefined, null, {}, { progressToken: null }, { progressToken: {} }, "x"]) {
      const out = sink();
      const stop = startRunProgress(meta, out);
      vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs * 3);
      stop();
      expect(out.sent).toEqual([]);
    }
  });

  it("a failed send does not end the run's progress", async () => {
    let calls = 0;
    const stop = startRunProgress(
      { progressToken: "t" },
      {
        sendNotification: () => {
          calls += 1;
          return Promise.reject(new Error("gone"));
        },
      },
    );
    vi.advanceTimersByTime(HOST_LIMITS.runProgressIntervalMs * 2);
    await Promise.resolve();
    stop();
    expect(calls).toBe(2);
  });
});
