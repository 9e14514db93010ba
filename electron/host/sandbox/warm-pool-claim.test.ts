import { describe, expect, it } from "vitest";
import type { SandboxContainer } from "./containers/sandbox-container.js";
import { fakeClock } from "../../../test-support/fake-clock.js";
import { WarmPool } from "./warm-pool.js";
import { POOL_CLAIM_WAIT_MS } from "./pool-waiters.js";
import { POOL_BURST_WINDOW_MS } from "./pool-target.js";
import {
  POOL_HEAVY_WINDOW_MS,
  POOL_LEAN_WINDOW_MS,
  POOL_REFILL_DELAY_MS,
} from "./warm-pool-options.js";

interface Made {
  warm: boolean;
  preload: boolean;
  removed: boolean;
  /** Says ready (true) or ends before it (false). */
  say: (ready: boolean) => void;
}

/** A pool of fake containers, each ready when the test says so. */
function gatedPool(size: number, options: { preload?: boolean; maxSize?: number } = {}) {
  const clock = fakeClock();
  const made: Made[] = [];
  const pool = new WarmPool({
    startContainer: (warm, preload) => {
      let say: (ready: boolean) => void = () => undefined;
      const ready = new Promise<boolean>((resolve) => (say = resolve));
      const fake: Made & { ready: Promise<boolean> } = {
        ...{ warm, preload, removed: false, say, ready },
      };
      const container = Object.assign(fake, {
        ended: new Promise<void>(() => undefined),
        remove: () => {
          fake.removed = true;
          return Promise.resolve();
        },
      });
      made.push(container);
      return Promise.resolve(container as unknown as SandboxContainer);
    },
    size,
    growth: { maxSize: options.maxSize ?? size, idleMs: 60_000 },
    clock,
    preload: options.preload ?? true,
  });
  const asMade = (c: SandboxContainer) => c as unknown as Made;
  /** Lets every container started so far say ready, and waits until the pool took them in. */
  const allReady = async () => {
    await pool.started(); // refills put off for a moment too
    for (const m of made) m.say(true);
    await pool.settled();
  };
  return { pool, made, clock, asMade, allReady };
}

/** Lets pending promise callbacks run (a take's wait registering, a ready line handled). */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("WarmPool claims by what the code needs", () => {
  it("a light run takes the lean spare, a heavy run the preloading container", async () => {
    const { pool, made, asMade, allReady } = gatedPool(2);
    pool.fill();
    await allReady();
    expect(made.map((m) => m.preload)).toEqual([true, false]);
    expect(await pool.take("lean")).toBe(made[1]);
    expect(await pool.take("preloaded")).toBe(made[0]);
    await allReady();
    // Without a need (the code unknown) the preloading one goes first.
    expect(asMade(await pool.take()).preload).toBe(true);
    await allReady();
    await pool.drain();
  });

  it("while heavy runs come, a burst of light runs leaves the preloading container to the heavy run after it", async () => {
    const { pool, made, asMade, allReady, clock } = gatedPool(2, { maxSize: 4 });
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]); // a heavy run; its refill preloads
    await allReady();
    const preloading = made[2]!;
    expect(preloading.preload).toBe(true);
    clock.advance(POOL_HEAVY_WINDOW_MS - POOL_BURST_WINDOW_MS);
    expect(asMade(await pool.take("lean"))).toBe(made[1]); // the spare
    // The next light run finds only the preloading container idle: it starts a cold one.
    expect(asMade(await pool.take("lean")).warm).toBe(false);
    // The heavy run right after the burst gets the preloading container at once.
    expect(await pool.take("preloaded")).toBe(preloading);
    await allReady();
    await pool.drain();
  });

  it("at rest, a pool with no lean spare hands its preloading container to a light run right after a heavy one", async () => {
    const { pool, made, allReady } = gatedPool(1);
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]); // a heavy run; its refill preloads
    await allReady();
    const preloading = made[1]!;
    expect(preloading.preload).toBe(true);
    // The pool is at its target and no take found it short: the light run gets it at once.
    expect(await pool.take("lean")).toBe(preloading);
    // Its replacement preloads, and a heavy run that comes while it imports waits for it.
    await pool.started();
    const replacement = made[2]!;
    expect(replacement.preload).toBe(true);
    const heavy = pool.take("preloaded");
    await flush();
    replacement.say(true);
    expect(await heavy).toBe(replacement);
    expect(made.every((m) => m.warm)).toBe(true);
    await allReady();
    await pool.drain();
  });

  it("in a pool with no lean spare, light runs leave the preloading container while runs come fast", async () => {
    const { pool, made, asMade, allReady, clock } = gatedPool(1);
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]);
    // Before its refill is ready: this take finds the pool short of its target.
    expect(asMade(await pool.take("lean")).warm).toBe(false);
    await allReady();
    const preloading = made.find((m) => m.warm && m !== made[0])!;
    expect(preloading.preload).toBe(true);
    clock.advance(POOL_LEAN_WINDOW_MS - 1);
    expect(asMade(await pool.take("lean")).warm).toBe(false);
    clock.advance(1);
    expect(await pool.take("lean")).toBe(preloading);
    await allReady();
    await pool.drain();
  });

  it("with no heavy run lately, a light run takes the preloading container rather than wait", async () => {
    const { pool, made, allReady, clock } = gatedPool(2, { maxSize: 4 });
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]);
    await allReady();
    clock.advance(POOL_HEAVY_WINDOW_MS);
    expect(await pool.take("lean")).toBe(made[1]); // the spare
    expect(await pool.take("lean")).toBe(made[2]); // the preloading one, at once
    await allReady();
    await pool.drain();
  });

  it("a heavy run that finds none ready waits for a refill under way; one that fails sends it to a cold start", async () => {
    const { pool, made, asMade, allReady } = gatedPool(1, { preload: false });
    pool.fill();
    await flush();
    let got: Made | undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    expect(got).toBeUndefined();
    // No cold start: one more refill starts in its place, and the run gets the first ready.
    expect(made.map((m) => m.warm)).toEqual([true, true]);
    made[0]!.say(true);
    await flush();
    expect(got).toBe(made[0]);
    expect(made).toHaveLength(2); // the other one is the pool's refill
    // The next run waits for it (and one more); both fail: it starts a cold one.
    got = undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    expect(made).toHaveLength(3);
    made[1]!.say(false);
    await flush();
    expect(got).toBeUndefined(); // the other refill under way is still its own
    made[2]!.say(false);
    await flush();
    expect((got as Made | undefined)?.warm).toBe(false);
    expect(made[1]!.removed && made[2]!.removed).toBe(true);
    await allReady();
    await pool.drain();
  });

  it("a waiting heavy run starts a cold container after POOL_CLAIM_WAIT_MS; the slow refill is pooled", async () => {
    const { pool, made, asMade, clock, allReady } = gatedPool(1, { preload: false });
    pool.fill();
    await flush();
    const got: { container?: Made } = {};
    void pool.take("preloaded").then((c) => (got.container = asMade(c)));
    await flush();
    clock.advance(POOL_CLAIM_WAIT_MS - 1);
    await flush();
    expect(got.container).toBeUndefined();
    clock.advance(1);
    await flush();
    expect(got.container?.warm).toBe(false);
    expect(made.filter((m) => m.warm)).toHaveLength(2); // the refill and the one more for it
    await allReady();
    expect(pool.idle).toBe(1); // one refill pooled, the other past the target removed
    await pool.drain();
  });

  it("a heavy run waits for a preloading container still importing rather than take a lean one", async () => {
    const { pool, made, asMade, allReady, clock } = gatedPool(2, { maxSize: 2 });
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]); // its refill preloads
    clock.advance(POOL_REFILL_DELAY_MS);
    await flush();
    const importing = made[2]!;
    expect(importing.preload).toBe(true);
    let got: Made | undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    expect(got).toBeUndefined(); // the lean spare stays idle
    expect(pool.idle).toBe(1);
    importing.say(true);
    await flush();
    expect(got).toBe(importing);
    await allReady();
    await pool.drain();
  });

  it("while a heavy run waits for a refill, a take from a pool at its target refills at once", async () => {
    const { pool, made, asMade, allReady, clock } = gatedPool(2, { maxSize: 2 });
    pool.fill();
    await allReady();
    expect(await pool.take("preloaded")).toBe(made[0]);
    clock.advance(POOL_REFILL_DELAY_MS); // its refill starts: it preloads
    await flush();
    expect(made[2]!.preload).toBe(true);
    let got: Made | undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    expect(got).toBeUndefined(); // it waits for the one still importing...
    expect(made).toHaveLength(4); // ...and a lean one starts beside it
    made[3]!.say(true);
    await flush();
    expect(pool.idle).toBe(2); // the spare and that lean one: the pool is at its target
    await pool.take("lean");
    expect(made).toHaveLength(5); // its refill is not put off: a run is waiting
    made[2]!.say(true);
    await flush();
    expect(got).toBe(made[2]);
    await allReady();
    await pool.drain();
  });

  it("after a heavy run, a refill under pressure still preloads while none is idle or starting", async () => {
    const { pool, made, allReady, clock } = gatedPool(2, { maxSize: 4 });
    pool.fill();
    await allReady();
    clock.advance(POOL_BURST_WINDOW_MS + 1);
    await pool.take("lean"); // the spare
    await pool.take("preloaded"); // the pool is short now: pressure; the preloading one goes
    await flush();
    // Of the refills started under pressure, one preloads (the next heavy run's), the rest not.
    const refills = made.slice(2);
    expect(refills.filter((m) => m.preload)).toHaveLength(1);
    expect(refills.length).toBeGreaterThan(2);
    await allReady();
    // Light runs only: refills under pressure stay lean.
    const light = gatedPool(2, { maxSize: 4 });
    light.pool.fill();
    await light.allReady();
    light.clock.advance(POOL_BURST_WINDOW_MS + 1);
    await light.pool.take("lean");
    void light.pool.take("lean");
    await flush();
    expect(light.made.slice(2).every((m) => !m.preload)).toBe(true);
    await light.allReady();
    await Promise.all([pool.drain(), light.pool.drain()]);
  });

  it("drain sends waiting runs to a cold start; restock never hands them a container made the old way", async () => {
    const { pool, made, asMade } = gatedPool(1, { preload: false });
    pool.fill();
    await flush();
    let got: Made | undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    pool.restock();
    made[0]!.say(true); // made before restock: removed, never handed over
    made[1]!.say(true);
    await flush();
    expect(made[0]!.removed && made[1]!.removed).toBe(true);
    expect(got).toBeUndefined(); // waiting for the new refills
    made[2]!.say(true);
    await flush();
    expect(got).toBe(made[2]);
    got = undefined;
    void pool.take("preloaded").then((c) => (got = asMade(c)));
    await flush();
    await pool.drain();
    await flush();
    expect((got as Made | undefined)?.warm).toBe(false);
    for (const m of made) m.say(true);
  });
});
