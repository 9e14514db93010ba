import { describe, expect, it } from "vitest";
import { RestartPolicy, restartDelayMs, type Clock } from "./restart-backoff.js";

describe("restart backoff", () => {
  // Inputs chosen here: the default values are pinned in shared/limits.test.ts.
  it("doubles the restart delay from the initial one up to the cap", () => {
    const backoff = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map((n) => restartDelayMs(n, backoff))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it("a server that stayed up for resetAfterMs starts the backoff over; a shorter uptime does not", () => {
    let now = 0;
    const clock: Clock = { now: () => now, setTimer: () => () => undefined };
    const policy = new RestartPolicy(clock, { initialMs: 100, maxMs: 1_000, resetAfterMs: 5_000 });
    expect([policy.nextDelay(), policy.nextDelay()].map((d) => d.delayMs)).toEqual([100, 200]);
    policy.markReady();
    now += 4_999;
    policy.markExited();
    expect(policy.nextDelay()).toEqual({ delayMs: 400, at: 4_999 + 400 });
    policy.markReady();
    now += 5_000;
    policy.markExited();
    expect(policy.nextDelay().delayMs).toBe(100);
  });

  it("waits at least the minimum asked for, and still counts the failure", () => {
    const clock: Clock = { now: () => 0, setTimer: () => () => undefined };
    const policy = new RestartPolicy(clock, { initialMs: 100, maxMs: 1_000, resetAfterMs: 5_000 });
    expect(policy.nextDelay(10_000).delayMs).toBe(10_000);
    expect(policy.nextDelay().delayMs).toBe(200);
  });
});
