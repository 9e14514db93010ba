import { describe, expect, it, vi } from "vitest";
import { CONTAINER_STOP_WAIT_MS, containerStopped, keepAfterStop } from "./keep-after-stop.js";

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

describe("keepAfterStop", () => {
  const slot = { dir: "/nowhere", workspace: "/nowhere/ws" };

  /** A container that stops when told to, and notes what was asked of it. */
  function fakeContainer() {
    const steps: string[] = [];
    let stop: (stopped: boolean) => void = () => undefined;
    const stopping = new Promise<boolean>((resolve) => (stop = resolve));
    return {
      steps,
      stop,
      container: {
        stopped: () => stopping,
        remove: () => {
          steps.push("remove");
          stop(true); // a removal kills it: it has stopped
          return Promise.resolve();
        },
      },
    };
  }

  it("keeps only once the container has stopped, then removes it", async () => {
    const fake = fakeContainer();
    const keep = vi.fn((_slot: unknown, stopped: boolean) => {
      fake.steps.push(`keep ${stopped}`);
      return Promise.resolve();
    });
    const after = keepAfterStop(fake.container, slot, keep, null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(keep).not.toHaveBeenCalled();
    fake.stop(true);
    await after;
    expect(fake.steps).toEqual(["keep true", "remove"]);
  });

  it("with nothing to keep, removes the container at once", async () => {
    const fake = fakeContainer();
    await keepAfterStop(fake.container, slot, null, null);
    expect(fake.steps).toEqual(["remove"]);
  });

  it("a slot past its limits before the stop has the container removed at once", async () => {
    const fake = fakeContainer();
    const over = new AbortController();
    const stopWatch = vi.fn();
    const keep = vi.fn((_slot: unknown, stopped: boolean) => {
      fake.steps.push(`keep ${stopped}`);
      return Promise.resolve();
    });
    const after = keepAfterStop(fake.container, slot, keep, {
      past: over.signal,
      stop: stopWatch,
    });
    over.abort("workspace_limit");
    await after;
    // Removed (which stopped it), then kept: the keep finds the slot over its limit.
    expect(fake.steps).toEqual(["remove", "keep true", "remove"]);
    expect(stopWatch).toHaveBeenCalledOnce();
  });
});
