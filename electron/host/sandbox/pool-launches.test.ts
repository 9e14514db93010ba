import { describe, expect, it } from "vitest";
import type { SandboxContainer } from "./containers/sandbox-container.js";
import { fakeClock } from "../../../test-support/fake-clock.js";
import { NOT_NEEDED, PoolLaunches } from "./pool-launches.js";
import { POOL_REFILL_DELAY_MS } from "./warm-pool-options.js";

const container = {} as SandboxContainer;

describe("PoolLaunches", () => {
  it("a start put off that throws at once fails alone; the others put off still start", async () => {
    const clock = fakeClock();
    const calls: boolean[] = [];
    const launches = new PoolLaunches((_warm, preload) => {
      calls.push(preload);
      if (preload) throw new Error("no engine");
      return Promise.resolve(container);
    }, clock);
    const first = launches.start(true, () => true);
    const second = launches.start(false, () => true);
    const third = launches.start(false, () => false);
    expect(calls).toEqual([]);
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(calls).toEqual([true, false]);
    await expect(first).rejects.toThrow("no engine");
    await expect(second).resolves.toBe(container);
    await expect(third).rejects.toBe(NOT_NEEDED);
    await launches.started(); // nothing left under way
    expect(clock.pending()).toBe(0);
  });
});
