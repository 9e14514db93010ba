import { describe, expect, it } from "vitest";
import type { SandboxContainer } from "./containers/sandbox-container.js";
import { fakeClock } from "../../../test-support/fake-clock.js";
import { until } from "../../../test-support/wait.js";
import { WarmPool, POOL_LEAN_SPARES } from "./warm-pool.js";
import { FIXED_POOL, POOL_BURST_WINDOW_MS } from "./pool-target.js";
import { POOL_LEAN_WINDOW_MS, POOL_REFILL_DELAY_MS } from "./warm-pool-options.js";

/**
 * A stand-in container: a label (the runtime it was made under), whether it was removed, and
 * its ready line (at once unless `ready` is given).
 */
function fakeContainer(label: string, ready: Promise<boolean> = Promise.resolve(true)) {
  const fake = {
    label,
    removed: false,
    ready,
    ended: new Promise<void>(() => undefined),
    remove: () => {
      fake.removed = true;
      return Promise.resolve();
    },
  };
  return fake;
}
type Fake = ReturnType<typeof fakeContainer>;

describe("WarmPool.restock", () => {
  it("no container made the old way reaches a run, idle or still starting", async () => {
    let label = "runc";
    const made: Fake[] = [];
    const gates: (() => void)[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer(label);
        made.push(container);
        // Each start waits until the test lets it finish.
        return new Promise<SandboxContainer>((resolve) =>
          gates.push(() => resolve(container as unknown as SandboxContainer)),
        );
      },
      size: 2,
    });
    pool.fill();
    gates.shift()!(); // one runc container ready, one still starting
    await new Promise((resolve) => setTimeout(resolve, 0)); // its ready line is awaited too
    expect(pool.idle).toBe(1);

    label = "runsc";
    pool.restock();
    expect(made.filter((c) => c.label === "runc" && c.removed)).toHaveLength(1);
    for (const open of gates.splice(0)) open(); // the late runc one and two runsc ones
    await pool.settled();
    expect(pool.idle).toBe(2);
    expect(made.filter((c) => c.label === "runc").every((c) => c.removed)).toBe(true);
    const taken = (await pool.take()) as unknown as Fake;
    expect(taken.label).toBe("runsc");
    for (const open of gates.splice(0)) open(); // the replacement take() started
    await pool.drain();
  });
});

describe("WarmPool.drain", () => {
  it("waits for the removals restock() and resize() started, so close leaves no container", async () => {
    const removals: (() => void)[] = [];
    const made: Fake[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer("runc");
        // Removing takes a while, as a real container's does.
        container.remove = () =>
          new Promise<void>((resolve) =>
            removals.push(() => {
              container.removed = true;
              resolve();
            }),
          );
        made.push(container);
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 2,
    });
    pool.fill();
    await pool.settled();
    expect(pool.idle).toBe(2);
    pool.resize(1); // one idle container removed
    pool.restock(); // the other one removed, a new one started
    await pool.settled();
    expect(removals).toHaveLength(2);

    let drained = false;
    const drain = pool.drain().then(() => (drained = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The two removals still under way, and the restocked idle container's own.
    expect(removals).toHaveLength(3);
    removals.pop()!(); // the idle container drain() itself removed is gone
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(drained).toBe(false); // resize's and restock's removals are not done yet
    for (const remove of removals.splice(0)) remove();
    await drain;
    expect(made.every((c) => c.removed)).toBe(true);
  });
});

describe("WarmPool warm flag", () => {
  it("starts pooled containers as warm and a container taken from an empty pool as cold", async () => {
    const clock = fakeClock();
    const asked: boolean[] = [];
    const pool = new WarmPool({
      startContainer: (warm) => {
        asked.push(warm);
        return Promise.resolve(fakeContainer("runc") as unknown as SandboxContainer);
      },
      size: 1,
      clock,
    });
    pool.fill();
    expect(asked).toEqual([true]);
    await pool.settled();
    await pool.take(); // the warm one; a warm replacement starts, off the run's way
    expect(asked).toEqual([true]);
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(asked).toEqual([true, true]);
    pool.resize(0);
    await pool.take(); // nothing pooled: a cold one, and no replacement
    expect(asked).toEqual([true, true, false]);
    await pool.drain();
  });
});

describe("WarmPool growth", () => {
  it("a burst of takes grows the pool, refilled in parallel; idle halves it back, removing the extras", async () => {
    const clock = fakeClock();
    const made: Fake[] = [];
    const gates: (() => void)[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer("runc");
        made.push(container);
        return new Promise<SandboxContainer>((resolve) =>
          gates.push(() => resolve(container as unknown as SandboxContainer)),
        );
      },
      size: 1,
      growth: { maxSize: 4, idleMs: 10_000 },
      clock,
    });
    const openAll = async () => {
      for (const open of gates.splice(0)) open();
      await pool.settled();
    };
    pool.fill();
    await openAll();
    expect(pool.idle).toBe(1);

    const taken: Fake[] = [];
    taken.push((await pool.take()) as unknown as Fake); // found one: no growth, one refill
    expect(pool.targetSize).toBe(1);
    expect(gates).toHaveLength(0); // the refill starts a moment later
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(gates).toHaveLength(1);
    const cold = [pool.take(), pool.take()]; // back to back: both find the pool empty
    expect(pool.targetSize).toBe(4);
    expect(gates).toHaveLength(6); // four warm ones started side by side, and two cold ones
    await openAll();
    for (const run of cold) taken.push((await run) as unknown as Fake);
    expect(pool.idle).toBe(4);
    // Containers stay fresh per run: no container is handed out twice.
    for (let i = 0; i < 3; i++) taken.push((await pool.take()) as unknown as Fake);
    expect(new Set(taken).size).toBe(taken.length);
    await openAll();
    expect(pool.idle).toBe(4);

    clock.advance(9_999);
    expect(pool.targetSize).toBe(4);
    clock.advance(1);
    expect(pool.targetSize).toBe(2);
    expect(pool.idle).toBe(2);
    clock.advance(10_000);
    expect(pool.targetSize).toBe(1);
    expect(pool.idle).toBe(1);
    expect(clock.pending()).toBe(0); // back at the floor: no timer left
    expect(made.filter((c) => !c.removed && !taken.includes(c))).toHaveLength(1);

    await pool.drain();
    expect(made.filter((c) => !taken.includes(c)).every((c) => c.removed)).toBe(true);
  });

  it("a container started for a target that shrank meanwhile is removed, not pooled", async () => {
    const clock = fakeClock();
    const made: Fake[] = [];
    const gates: (() => void)[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer("runc");
        made.push(container);
        return new Promise<SandboxContainer>((resolve) =>
          gates.push(() => resolve(container as unknown as SandboxContainer)),
        );
      },
      size: 0,
      growth: { maxSize: 4, idleMs: 1_000 },
      clock,
    });
    const first = pool.take(); // nothing taken before it: no burst, no growth
    gates.pop()!();
    await first;
    expect(pool.targetSize).toBe(0);
    const cold = pool.take(); // right after another: target 1, a warm one starts beside it
    gates.pop()!(); // the cold one
    await cold;
    expect(pool.targetSize).toBe(1);
    clock.advance(1_000); // idle: back to 0 while the warm one still starts
    expect(pool.targetSize).toBe(0);
    for (const open of gates.splice(0)) open();
    await pool.settled();
    expect(pool.idle).toBe(0);
    expect(made[1]?.removed).toBe(true); // the warm one
    expect(made[2]?.removed).toBe(false); // the run's: the run removes it when done
    await pool.drain();
  });

  it("drain stops the shrink timer and removes every idle container of a grown pool", async () => {
    const clock = fakeClock();
    const made: Fake[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer("runc");
        made.push(container);
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 1,
      growth: { maxSize: 8, idleMs: 1_000 },
      clock,
    });
    pool.fill();
    await pool.settled();
    // Two takes at once: the second finds the pool empty, so it grows.
    const taken = (await Promise.all([pool.take(), pool.take()])) as unknown as Fake[];
    await pool.settled();
    expect(pool.idle).toBe(2);
    expect(clock.pending()).toBe(1);
    await pool.drain();
    expect(clock.pending()).toBe(0);
    expect(made.filter((c) => !taken.includes(c)).every((c) => c.removed)).toBe(true);
    await pool.take(); // after drain: a cold one, nothing started for the pool
    expect(pool.idle).toBe(0);
  });
  it("a client running alone, each run started before the last one's refill is ready, does not grow the pool to its ceiling", async () => {
    // Runs one after another every 2 s, a container taking 3 s to be ready: a growth's
    // containers are not ready by the next take, which must not count as the pool falling behind.
    const startMs = 3_000;
    for (const floor of [1, 2]) {
      const clock = fakeClock();
      const starts: { at: number; open: () => void }[] = [];
      let started = 0;
      const pool = new WarmPool({
        startContainer: () => {
          started++;
          const container = fakeContainer("runc");
          return new Promise<SandboxContainer>((resolve) =>
            starts.push({
              at: clock.t,
              open: () => resolve(container as unknown as SandboxContainer),
            }),
          );
        },
        size: floor,
        growth: { maxSize: 16, idleMs: 60_000 },
        clock,
      });
      const openDue = async () => {
        for (const start of starts.filter((s) => s.at + startMs <= clock.t)) {
          starts.splice(starts.indexOf(start), 1);
          start.open();
        }
        for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      };
      pool.fill();
      clock.advance(startMs);
      await openDue();
      const targets: number[] = [];
      for (let run = 0; run < 20; run++) {
        clock.advance(2_000 - POOL_REFILL_DELAY_MS);
        await openDue();
        void pool.take();
        targets.push(pool.targetSize);
        clock.advance(POOL_REFILL_DELAY_MS); // its refill, if put off
      }
      // Growing once covers the containers under way (it was 16, and 36 starts, before).
      expect(Math.max(...targets), `floor ${floor}: ${targets.join(",")}`).toBeLessThanOrEqual(4);
      expect(started).toBeLessThanOrEqual(20 + 4);
      for (const start of starts.splice(0)) start.open();
      await pool.drain();
    }
  });
});

describe("WarmPool refill after a take", () => {
  /** A pool of fake containers, ready at once, on a fake clock. */
  function quickPool(size: number) {
    const clock = fakeClock();
    const made: { preload: boolean; container: Fake }[] = [];
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        const container = fakeContainer("runc");
        made.push({ preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size,
      clock,
      preload: true,
    });
    return { pool, made, clock };
  }

  it("a take from a pool at its target starts the replacement POOL_REFILL_DELAY_MS later, made as decided at the take", async () => {
    const { pool, made, clock } = quickPool(1);
    pool.fill();
    await pool.settled();
    await pool.take();
    clock.advance(POOL_REFILL_DELAY_MS - 1);
    expect(made).toHaveLength(1);
    clock.advance(1);
    expect(made.map((m) => m.preload)).toEqual([true, true]);
    await pool.settled();
    expect(pool.idle).toBe(1);
    expect(pool.lastError).toBeNull();
    await pool.drain();
  });

  it("the next take, or one waiting for the pool, starts it at once", async () => {
    const { pool, made, clock } = quickPool(2);
    pool.fill();
    await pool.settled();
    await pool.take();
    expect(made).toHaveLength(2);
    await pool.take(); // the pool is short now: both refills start
    expect(made).toHaveLength(4);
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(made).toHaveLength(4); // the one put off is not started twice
    await pool.settled();
    expect(pool.idle).toBe(2);
    await pool.take();
    expect(made).toHaveLength(4);
    await pool.settled(); // waiting for the pool starts it now
    expect(made).toHaveLength(5);
    expect(pool.idle).toBe(2);
    await pool.drain();
  });

  it("drain, restock and a lower floor start none put off before them, and note no error", async () => {
    for (const end of ["drain", "restock", "resize"] as const) {
      const { pool, made, clock } = quickPool(1);
      pool.fill();
      await pool.settled();
      const taken = (await pool.take()) as unknown as Fake;
      if (end === "drain") {
        await pool.drain();
        expect(made).toHaveLength(1);
        expect(clock.pending()).toBe(0);
      } else {
        if (end === "restock") pool.restock();
        else pool.resize(0);
        // Restocked: the new generation's one, not the old one put off; resized: none.
        expect(made).toHaveLength(end === "restock" ? 2 : 1);
        clock.advance(POOL_REFILL_DELAY_MS);
        expect(made).toHaveLength(end === "restock" ? 2 : 1);
        await pool.settled();
        expect(pool.idle).toBe(end === "restock" ? 1 : 0);
        await pool.drain();
      }
      expect(pool.lastError, end).toBeNull();
      // Every container the pool kept is gone; the run removes its own.
      expect(made.every((m) => m.container.removed !== (m.container === taken))).toBe(true);
    }
  });
});

describe("WarmPool readiness", () => {
  /** A pool whose containers say ready (or not) when the test decides. */
  function gatedPool(size: number, readyTimeoutMs = 60_000) {
    const made: (Fake & { warm: boolean; say: (ready: boolean) => void })[] = [];
    const pool = new WarmPool({
      startContainer: (warm) => {
        let say: (ready: boolean) => void = () => undefined;
        const ready = new Promise<boolean>((resolve) => (say = resolve));
        const container = Object.assign(fakeContainer("runc", ready), { warm, say });
        made.push(container);
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size,
      readyTimeoutMs,
    });
    return { pool, made };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

  it("pools a container only once it said ready; a run meanwhile gets a cold one at once", async () => {
    const { pool, made } = gatedPool(1);
    pool.fill();
    await tick();
    expect(pool.idle).toBe(0); // started, still importing
    const taken = (await pool.take()) as unknown as (typeof made)[number];
    expect(taken.warm).toBe(false);
    expect(made).toHaveLength(2); // no second warm one: the first still counts as starting
    made[0]!.say(true);
    await pool.settled();
    expect(pool.idle).toBe(1);
    expect(((await pool.take()) as unknown as (typeof made)[number]).warm).toBe(true);
    made.at(-1)!.say(true);
    await pool.drain();
  });

  it("removes one that ended before ready, without a replacement until the next take", async () => {
    const { pool, made } = gatedPool(1);
    pool.fill();
    made[0]!.say(false);
    await pool.settled();
    expect(made[0]!.removed).toBe(true);
    expect(pool.idle).toBe(0);
    expect(made).toHaveLength(1);
    expect(String(pool.lastError)).toMatch(/ended before its runner was ready/);
    await pool.drain();
  });

  it("removes and replaces one not ready within readyTimeoutMs", async () => {
    const { pool, made } = gatedPool(1, 20);
    pool.fill();
    await until(() => made.length === 2, "a replacement");
    expect(made[0]!.removed).toBe(true);
    expect(String(pool.lastError)).toMatch(/did not say ready within 20 ms/);
    made[1]!.say(true);
    await pool.settled();
    expect(pool.idle).toBe(1);
    expect(pool.lastError).toBeNull();
    await pool.drain();
  });

  it("started() counts a container still importing, without waiting for its imports", async () => {
    const { pool, made } = gatedPool(1);
    pool.fill();
    expect(await pool.started()).toBe(1); // would hang if it waited for the ready line
    expect(pool.idle).toBe(0);
    made[0]!.say(true);
    await pool.drain();
  });

  it("drain() does not wait for imports: a container still importing is removed at once", async () => {
    const { pool, made } = gatedPool(1);
    pool.fill();
    await tick();
    await pool.drain(); // would hang (the test time out) if it waited for ready
    expect(made[0]!.removed).toBe(true);
  });

  it("restock() removes one still importing; it never reaches a run", async () => {
    const { pool, made } = gatedPool(1);
    pool.fill();
    await tick();
    pool.restock();
    made[0]!.say(true);
    made[1]!.say(true);
    await pool.settled();
    expect(made[0]!.removed).toBe(true);
    expect(pool.idle).toBe(1);
    expect(await pool.take()).toBe(made[1]);
    made.at(-1)!.say(true);
    await pool.drain();
  });
});

describe("WarmPool preload under pressure", () => {
  it("refills skip preloading while takes miss; a rested pool swaps them for preloading ones", async () => {
    const clock = fakeClock();
    const made: { warm: boolean; preload: boolean; container: Fake }[] = [];
    const pool = new WarmPool({
      startContainer: (warm, preload) => {
        const container = fakeContainer(preload ? "preloaded" : "lean");
        made.push({ warm, preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 1,
      clock,
      preload: true,
    });
    pool.fill();
    await pool.settled();
    // A rested pool preloads.
    expect(made.map((m) => m.preload)).toEqual([true]);
    await pool.take(); // the preloaded one: no miss, its refill preloads too
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(made.map((m) => [m.warm, m.preload])).toEqual([
      [true, true],
      [true, true],
    ]);
    const miss = pool.take(); // the refill is not ready yet: a cold one
    await miss;
    expect(made[2]).toMatchObject({ warm: false, preload: false });
    await pool.settled();
    // The refill after that miss (and any within POOL_LEAN_WINDOW_MS) skips preloading.
    clock.advance(POOL_LEAN_WINDOW_MS - 1);
    await pool.take();
    clock.advance(POOL_REFILL_DELAY_MS); // the refill, decided at the take, starts
    expect(made.at(-1)).toMatchObject({ warm: true, preload: false });
    await pool.settled();
    expect(pool.idle).toBe(1);
    const lean = made.at(-1)!.container;
    // No take for POOL_LEAN_WINDOW_MS: the lean idle one is replaced by a preloading one.
    clock.advance(POOL_LEAN_WINDOW_MS - POOL_REFILL_DELAY_MS - 1);
    expect(lean.removed).toBe(false);
    clock.advance(1);
    expect(lean.removed).toBe(true);
    expect(made.at(-1)).toMatchObject({ warm: true, preload: true });
    await pool.settled();
    expect(pool.idle).toBe(1);
    expect(clock.pending()).toBe(0); // nothing lean left: no timer
    // The miss is long past: refills preload again.
    await pool.take();
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(made.at(-1)).toMatchObject({ warm: true, preload: true });
    await pool.drain();
  });

  it("a rested pool swaps its lean containers one at a time, each once the last replacement is ready", async () => {
    const clock = fakeClock();
    const made: { warm: boolean; preload: boolean; container: Fake }[] = [];
    const gates: (() => void)[] = [];
    const open = async () => {
      for (const gate of gates.splice(0)) gate();
      await pool.settled();
    };
    const pool = new WarmPool({
      startContainer: (warm, preload) => {
        const container = fakeContainer(
          preload ? "preloaded" : "lean",
          new Promise((resolve) => gates.push(() => resolve(true))),
        );
        made.push({ warm, preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 3,
      clock,
      preload: true,
    });
    pool.fill();
    await open();
    const taken = new Set<unknown>();
    for (let i = 0; i < 3; i++) taken.add(await pool.take()); // refills start, not ready yet
    taken.add(await pool.take()); // none ready: a miss
    await open();
    for (let i = 0; i < 3; i++) taken.add(await pool.take()); // within the window: lean refills
    await open();
    const idleLean = made.filter((m) => !m.preload && !taken.has(m.container)).length;
    expect(pool.idle).toBe(3);
    expect(idleLean).toBe(3);
    clock.advance(POOL_LEAN_WINDOW_MS);
    // The floor of 3 keeps its lean spare (POOL_LEAN_SPARES): the others are swapped.
    const swaps = idleLean - POOL_LEAN_SPARES;
    for (let left = swaps - 1; left >= 0; left--) {
      // One lean container went; the others stay ready until its replacement is.
      expect(pool.idle).toBe(2);
      expect(made.at(-1)?.preload).toBe(true);
      await open();
      clock.advance(0);
      if (left > 0) expect(pool.idle).toBe(2);
    }
    await pool.settled();
    expect(pool.idle).toBe(3);
    const idle = made.filter((m) => !taken.has(m.container) && !m.container.removed);
    expect(idle.filter((m) => !m.preload).length).toBe(POOL_LEAN_SPARES);
    clock.advance(POOL_LEAN_WINDOW_MS);
    expect(clock.pending()).toBe(0);
    await pool.drain();
  });

  it("a burst on a full pool goes lean from its second take: the first take's refill is still under way", async () => {
    const clock = fakeClock();
    const made: { preload: boolean; container: Fake }[] = [];
    const gates: (() => void)[] = [];
    const open = async () => {
      await pool.started(); // refills put off too
      for (const gate of gates.splice(0)) gate();
      await pool.settled();
    };
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        const container = fakeContainer(
          preload ? "preloaded" : "lean",
          new Promise((resolve) => gates.push(() => resolve(true))),
        );
        made.push({ preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 2,
      clock,
      preload: true,
    });
    pool.fill();
    await open();
    // The floor of 2 is one preloading container and a lean spare (POOL_LEAN_SPARES).
    // Spaced runs take the preloading one: each refill is ready before the next take, so every
    // refill preloads, and the spare stays.
    for (let i = 0; i < 3; i++) {
      clock.advance(1_000);
      await pool.take();
      await open();
    }
    expect(made.map((m) => m.preload)).toEqual([true, false, true, true, true]);
    // Back to back: the second take finds the first one's refill still importing (the pool
    // is short, though one container is still ready), so its refill and the next skip the
    // imports; so does a third's.
    clock.advance(1_000);
    await pool.take();
    await pool.take();
    clock.advance(1_000);
    await open();
    await pool.take();
    clock.advance(POOL_REFILL_DELAY_MS);
    expect(made.slice(5).map((m) => m.preload)).toEqual([true, false, false]);
    await open();
    await pool.drain();
  });

  it("a floor of 2 is one preloading container and a lean spare; a burst's second take grows the pool", async () => {
    const clock = fakeClock();
    const made: { preload: boolean; container: Fake }[] = [];
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        const container = fakeContainer(preload ? "preloaded" : "lean");
        made.push({ preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 2,
      growth: { maxSize: 4, idleMs: 60_000 },
      clock,
      preload: true,
    });
    pool.fill();
    await pool.settled();
    expect(made.map((m) => m.preload)).toEqual([true, false]);
    // A run on its own gets the preloading one (it may import pandas); its refill preloads.
    const first = await pool.take();
    expect(first).toBe(made[0]!.container);
    await pool.settled();
    expect(made.map((m) => m.preload)).toEqual([true, false, true]);
    // A burst: its first run takes the preloading one, the second the spare, not a cold start,
    // and the pool grows then, its new refills lean.
    clock.advance(POOL_BURST_WINDOW_MS + 1);
    expect(await pool.take()).toBe(made[2]!.container);
    expect(await pool.take()).toBe(made[1]!.container);
    expect(pool.targetSize).toBe(4);
    await pool.settled();
    expect(made.slice(3).map((m) => m.preload)).toEqual([true, false, false, false]);
    await pool.drain();
  });

  it("a rested grown pool preloads only its floor's worth; shrinking removes the lean ones first", async () => {
    const clock = fakeClock();
    const made: { preload: boolean; container: Fake }[] = [];
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        const container = fakeContainer(preload ? "preloaded" : "lean");
        made.push({ preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 1,
      growth: { maxSize: 4, idleMs: 60_000 },
      clock,
      preload: true,
    });
    pool.fill();
    await pool.settled();
    // A burst: takes faster than the refills grow the pool to 4, refilled lean.
    const taken = new Set(await Promise.all(Array.from({ length: 8 }, () => pool.take())));
    await pool.settled();
    expect(pool.targetSize).toBe(4);
    expect(pool.idle).toBe(4);
    const idle = () => {
      const live = made.filter((m) => !m.container.removed && !taken.has(m.container as never));
      return {
        preloaded: live.filter((m) => m.preload).length,
        lean: live.filter((m) => !m.preload).length,
      };
    };
    // The first take's refill preloaded (no pressure yet); the burst's were lean.
    expect(idle()).toEqual({ preloaded: 1, lean: 3 });
    const before = made.length;
    // Rested: the floor (1) preloads already, so the three lean ones stay (before, each was
    // swapped for a preloading one).
    for (let i = 0; i < 3; i++) {
      clock.advance(POOL_LEAN_WINDOW_MS); // 30 s in all, under the 60 s idle time
      await pool.settled();
    }
    expect(pool.idle).toBe(4);
    expect(idle()).toEqual({ preloaded: 1, lean: 3 });
    expect(made.length).toBe(before);
    expect(clock.pending()).toBe(1); // only the shrink timer
    // Quiet for the idle time: halved to 2, then to 1, the lean ones removed first.
    clock.advance(60_000);
    expect(pool.idle).toBe(2);
    clock.advance(60_000);
    expect(pool.idle).toBe(1);
    expect(idle()).toMatchObject({ preloaded: 1, lean: 0 });
    await pool.drain();
  });

  it("a floor lowered to 2 keeps one preloading container and its lean spare", async () => {
    const made: { preload: boolean; container: Fake }[] = [];
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        const container = fakeContainer(preload ? "preloaded" : "lean");
        made.push({ preload, container });
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 3,
      growth: FIXED_POOL,
      clock: fakeClock(),
      preload: true,
    });
    pool.fill();
    await pool.settled();
    expect(made.map((m) => m.preload)).toEqual([true, true, false]);
    pool.resize(2);
    // The preloading one past the new floor's worth goes (~56 MiB more idle), not the spare.
    const live = made.filter((m) => !m.container.removed);
    expect(live.map((m) => m.preload)).toEqual([true, false]);
    await pool.drain();
  });

  it("never asks for preloading when it is off; no rest timer", async () => {
    const clock = fakeClock();
    const asked: boolean[] = [];
    const pool = new WarmPool({
      startContainer: (_warm, preload) => {
        asked.push(preload);
        return Promise.resolve(fakeContainer("runc") as unknown as SandboxContainer);
      },
      size: 1,
      clock,
    });
    pool.fill();
    await pool.take();
    await pool.take();
    await pool.settled();
    expect(asked.every((p) => !p)).toBe(true);
    expect(clock.pending()).toBe(0);
    await pool.drain();
  });

  it("drain stops the rest timer", async () => {
    const clock = fakeClock();
    const pool = new WarmPool({
      startContainer: () => Promise.resolve(fakeContainer("runc") as unknown as SandboxContainer),
      size: 1,
      clock,
      preload: true,
    });
    await pool.take(); // a miss: the refill is lean
    await pool.settled();
    expect(clock.pending()).toBe(1);
    await pool.drain();
    expect(clock.pending()).toBe(0);
  });
});

describe("WarmPool onPooled", () => {
  it("is told of each container as it joins the pool, and one that throws still pools it", async () => {
    const pooled: Fake[] = [];
    let calls = 0;
    const pool = new WarmPool({
      startContainer: () => Promise.resolve(fakeContainer("runc") as unknown as SandboxContainer),
      size: 2,
      onPooled: (container) => {
        calls++;
        pooled.push(container as unknown as Fake);
        if (calls === 1) throw new Error("staging failed");
      },
    });
    pool.fill();
    await pool.settled();
    expect(pool.idle).toBe(2);
    expect(pooled).toHaveLength(2);
    await pool.drain();
  });
});

describe("WarmPool.reviewIdle", () => {
  it("removes the idle containers it is told not to keep and refills the pool at once", async () => {
    let made = 0;
    const all: Fake[] = [];
    const pool = new WarmPool({
      startContainer: () => {
        const container = fakeContainer(`c${++made}`);
        all.push(container);
        return Promise.resolve(container as unknown as SandboxContainer);
      },
      size: 2,
    });
    pool.fill();
    await pool.settled();
    expect(pool.idle).toBe(2);
    pool.reviewIdle((c) => (c as unknown as Fake).label !== "c1");
    expect(all[0]!.removed).toBe(true);
    expect(all[1]!.removed).toBe(false);
    await pool.settled();
    expect(pool.idle).toBe(2);
    expect(made).toBe(3);
    // A review that keeps every container starts nothing.
    pool.reviewIdle(() => true);
    await pool.settled();
    expect(made).toBe(3);
    const first = (await pool.take()) as unknown as Fake;
    expect(first.label).toBe("c2");
    await pool.drain();
  });
});
