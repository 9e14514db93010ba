import { afterEach, describe, expect, it, vi } from "vitest";
import { waitAtMost } from "./wait-at-most.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("waitAtMost", () => {
  it("resolves when the promise does, and leaves no timer", async () => {
    vi.useFakeTimers();
    expect(await waitAtMost(Promise.resolve(1), 5_000)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("resolves after the bound when the promise does not settle", async () => {
    vi.useFakeTimers();
    let done = false;
    const waiting = waitAtMost(new Promise(() => undefined), 5_000).then((settled) => {
      done = true;
      return settled;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toBe(false);
    expect(done).toBe(true);
  });

  it("never rejects: a rejected promise ends the wait like a resolved one", async () => {
    await expect(waitAtMost(Promise.reject(new Error("no")), 5_000)).resolves.toBe(true);
  });
});
