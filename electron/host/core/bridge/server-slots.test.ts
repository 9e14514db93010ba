import { describe, expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { ServerSlots, type SlotDone } from "./server-slots.js";

const signal = new AbortController().signal;

/** Takes `n` slots (all must be free). */
async function take(slots: ServerSlots, n: number, tool = "t"): Promise<SlotDone[]> {
  return Promise.all(Array.from({ length: n }, () => slots.acquire(signal, tool)));
}

describe("ServerSlots", () => {
  it("starts each burst at serverConcurrencyStart and holds the ceiling from the setting", () => {
    expect(new ServerSlots({ ceiling: 64 }).limit).toBe(BRIDGE_LIMITS.serverConcurrencyStart);
    // A ceiling under the start is a fixed cap, as the setting promises.
    expect(new ServerSlots({ ceiling: 3 }).limit).toBe(3);
    expect(() => new ServerSlots({ ceiling: 0 })).toThrow(RangeError);
  });

  it("grows one slot per answer as fast as before while calls queue, up to the ceiling", async () => {
    const slots = new ServerSlots({ ceiling: 6, start: 2 });
    const first = await take(slots, 2);
    const queued = Array.from({ length: 10 }, () => slots.acquire(signal, "t"));
    first[0]?.(50);
    first[1]?.(50);
    expect(slots.limit).toBe(4);
    const next = await Promise.all(queued.slice(0, 4));
    for (const done of next) done(55);
    expect(slots.limit).toBe(6); // the ceiling, though answers stayed fast and calls queue
    expect(slots.inUse).toBe(6);
  });

  it("gives back a slot per slow answer, never below the start", async () => {
    const slots = new ServerSlots({ ceiling: 8, start: 2 });
    const first = await take(slots, 2);
    const queued = Array.from({ length: 20 }, () => slots.acquire(signal, "t"));
    for (const done of first) done(10);
    expect(slots.limit).toBe(4);
    const second = await Promise.all(queued.slice(0, 4));
    // More than twice the tool's fastest (10 ms): the server is slowed by the load.
    for (const done of second) done(25);
    expect(slots.limit).toBe(2);
    expect(slots.inUse).toBe(2);
  });

  it("judges each tool against its own fastest call", async () => {
    const slots = new ServerSlots({ ceiling: 8, start: 1 });
    const [a] = await take(slots, 1, "quick");
    const queued = [slots.acquire(signal, "slow"), slots.acquire(signal, "slow")];
    a?.(1);
    expect(slots.limit).toBe(2);
    const [b, c] = await Promise.all(queued);
    void slots.acquire(signal, "slow");
    // 400 ms is slow for "quick" but is the first (so the fastest) of "slow".
    b?.(400);
    expect(slots.limit).toBe(3);
    c?.(410);
    expect(slots.limit).toBe(3); // no more queue: no more slots, however fast
  });

  it("earns nothing without a queue, and a burst after an idle moment starts over", async () => {
    const slots = new ServerSlots({ ceiling: 8, start: 2 });
    for (let i = 0; i < 5; i++) (await slots.acquire(signal, "t"))(5);
    expect(slots.limit).toBe(2);
    const [a, b] = await take(slots, 2);
    const queued = slots.acquire(signal, "t");
    a?.(5);
    expect(slots.limit).toBe(3);
    b?.(5);
    (await queued)(5);
    expect(slots.inUse).toBe(0);
    expect(slots.limit).toBe(2);
  });

  it("a call without a latency (failed, cancelled) frees its slot and changes nothing", async () => {
    const slots = new ServerSlots({ ceiling: 8, start: 1 });
    const [a] = await take(slots, 1);
    const queued = slots.acquire(signal, "t");
    a?.();
    a?.(1); // a second call of the same done is ignored
    expect(slots.limit).toBe(1);
    (await queued)();
    expect(slots.inUse).toBe(0);
  });
});
