import { describe, expect, it, vi } from "vitest";
import { CONTAINER_STOP_WAIT_MS, containerStopped } from "./workspace-run.js";

describe("containerStopped", () => {
  it("is true once the container stops on its own, without removing it", async () => {
    const remove = vi.fn(() => Promise.resolve());
    expect(await containerStopped({ stopped: () => Promise.resolve(true), remove })).toBe(true);
    expect(remove).not.toHaveBeenCalled();
  });

  it("removes a container that does not stop in time, and says whether that worked", async () => {
    vi.useFakeTimers();
    try {
      const never = () => new Promise<boolean>(() => undefined);
      const removed = containerStopped({ stopped: never, remove: () => Promise.resolve() });
      const failed = containerStopped({
        stopped: never,
        remove: () => Promise.reject(new Error("x")),
      });
      await vi.advanceTimersByTimeAsync(CONTAINER_STOP_WAIT_MS);
      expect(await removed).toBe(true);
      expect(await failed).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("removes a container the engine cannot say has stopped", async () => {
    const remove = vi.fn(() => Promise.resolve());
    expect(await containerStopped({ stopped: () => Promise.resolve(false), remove })).toBe(true);
    expect(remove).toHaveBeenCalledOnce();
  });
});
