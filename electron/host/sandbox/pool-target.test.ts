import { describe, expect, it } from "vitest";
import { fakeClock } from "../../../test-support/fake-clock.js";
import {
  FIXED_POOL,
  poolGrowthFor,
  PoolTarget,
  POOL_BURST_WINDOW_MS,
  POOL_GROWTH_FACTOR,
} from "./pool-target.js";

describe("PoolTarget", () => {
  it("doubles when a take finds the pool empty, up to its ceiling; once grown, also when a take leaves it under half full", () => {
    const clock = fakeClock();
    const target = new PoolTarget(1, { maxSize: 6, idleMs: 60_000 }, clock.now);
    expect(target.size).toBe(1);
    target.taken(0, true); // the first run ever, before the pool filled: no burst
    expect(target.size).toBe(1);
    clock.t = 30_000;
    target.taken(0, false); // runs spaced out: each finds its container, the pool stays put
    clock.t = 40_000;
    target.taken(0, false);
    expect(target.size).toBe(1);
    clock.t = 40_000 + POOL_BURST_WINDOW_MS + 1;
    target.taken(0, true); // empty, but long after the last take: a failed refill, no burst
    expect(target.size).toBe(1);
    clock.t += POOL_BURST_WINDOW_MS;
    target.taken(0, true); // a run had to wait for a cold container right after another
    expect(target.size).toBe(2);
    target.taken(1, false); // half full is enough
    expect(target.size).toBe(2);
    target.taken(0, false);
    expect(target.size).toBe(4);
    target.taken(1, false); // 1 of 4 left
    expect(target.size).toBe(6);
    target.taken(0, true);
    expect(target.size).toBe(6);
  });

  it("grows when a take right after another finds the pool short, though not empty", () => {
    const clock = fakeClock();
    const target = new PoolTarget(2, { maxSize: 4, idleMs: 60_000 }, clock.now);
    target.taken(1, false, false); // the first run of a burst: the floor was all there
    expect(target.size).toBe(2);
    target.taken(0, false, true); // the second takes the floor's last container
    expect(target.size).toBe(4);
    const spaced = new PoolTarget(2, { maxSize: 4, idleMs: 60_000 }, clock.now);
    spaced.taken(1, false, false);
    clock.t += POOL_BURST_WINDOW_MS + 1;
    spaced.taken(1, false, true); // short, but long after the last take: no burst
    expect(spaced.size).toBe(2);
  });

  it("a grown pool does not grow for being short, nor while its last growth's containers start, but for a miss", () => {
    const clock = fakeClock();
    const target = new PoolTarget(2, { maxSize: 16, idleMs: 60_000 }, clock.now);
    target.taken(1, false, false);
    target.taken(0, false, true); // short at the floor: grows
    expect(target.size).toBe(4);
    target.taken(2, false, true); // short, half left: a refill under way is no sign of falling behind
    expect(target.size).toBe(4);
    target.taken(0, false, true, true); // under half, but the growth's containers are still starting
    expect(target.size).toBe(4);
    target.taken(0, true, true, true); // a miss: runs outran the pool
    expect(target.size).toBe(8);
  });

  it("halves after each idle time without a take, down to the floor", () => {
    const clock = fakeClock();
    const target = new PoolTarget(1, { maxSize: 8, idleMs: 1_000 }, clock.now);
    for (let i = 0; i < 5; i++) target.taken(0, true); // the first is no burst
    expect(target.size).toBe(8);
    clock.t = 999;
    expect(target.shrinkIfIdle()).toBe(false);
    expect(target.msUntilShrink()).toBe(1);
    clock.t = 1_000;
    expect(target.shrinkIfIdle()).toBe(true);
    expect(target.size).toBe(4);
    expect(target.shrinkIfIdle()).toBe(false); // the next halving waits a whole idle time
    clock.t = 1_500;
    target.taken(3, false); // a take restarts the idle time and, 3 of 4 left, does not grow
    expect(target.size).toBe(4);
    clock.t = 2_499;
    expect(target.shrinkIfIdle()).toBe(false);
    clock.t = 2_500;
    expect(target.shrinkIfIdle()).toBe(true);
    clock.t = 3_500;
    expect(target.shrinkIfIdle()).toBe(true);
    expect(target.size).toBe(1);
    expect(target.grown).toBe(false);
    clock.t = 10_000;
    expect(target.shrinkIfIdle()).toBe(false);
    expect(target.size).toBe(1);
  });

  it("a floor of 0 grows from nothing and goes back to nothing", () => {
    const clock = fakeClock();
    const target = new PoolTarget(0, { maxSize: 4, idleMs: 1_000 }, clock.now);
    target.taken(0, true);
    target.taken(0, true);
    expect(target.size).toBe(1);
    clock.t = 1_000;
    target.shrinkIfIdle();
    expect(target.size).toBe(0);
  });

  it("a fixed pool never grows; a ceiling under the floor is the floor", () => {
    const clock = fakeClock();
    const fixed = new PoolTarget(2, FIXED_POOL, clock.now);
    fixed.taken(0, true);
    fixed.taken(0, true);
    expect(fixed.size).toBe(2);
    const low = new PoolTarget(3, { maxSize: 1, idleMs: 1_000 }, clock.now);
    low.taken(0, true);
    low.taken(0, true);
    expect(low.size).toBe(3);
  });

  it("new settings clamp the current target at once", () => {
    const clock = fakeClock();
    const target = new PoolTarget(1, { maxSize: 8, idleMs: 1_000 }, clock.now);
    for (let i = 0; i < 5; i++) target.taken(0, true); // the first is no burst
    target.setGrowth({ maxSize: 3, idleMs: 1_000 });
    expect(target.size).toBe(3);
    target.setFloor(5);
    expect(target.size).toBe(5);
    target.setFloor(0);
    expect(target.size).toBe(3); // back under the ceiling; it shrinks further when idle
  });
});

describe("poolGrowthFor", () => {
  it("caps growth by the concurrent-runs limit", () => {
    const growth = { warmPoolMaxSize: 8, warmPoolIdleSeconds: 30, maxConcurrentRuns: 3 };
    expect(poolGrowthFor(growth)).toEqual({ maxSize: 3, idleMs: 30_000 });
    expect(poolGrowthFor({ ...growth, maxConcurrentRuns: 16 })).toEqual({
      maxSize: 8,
      idleMs: 30_000,
    });
  });

  it("doubles by the named growth factor", () => {
    expect(POOL_GROWTH_FACTOR).toBe(2);
  });
});
