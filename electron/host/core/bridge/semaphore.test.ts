import { describe, expect, it } from "vitest";
import { Semaphore } from "./semaphore.js";

describe("Semaphore", () => {
  it("hands out at most `limit` slots and serves waiters in order", async () => {
    const semaphore = new Semaphore(2);
    const signal = new AbortController().signal;
    const a = await semaphore.acquire(signal);
    await semaphore.acquire(signal);
    const order: string[] = [];
    const c = semaphore.acquire(signal).then((r) => (order.push("c"), r));
    const d = semaphore.acquire(signal).then((r) => (order.push("d"), r));
    expect(semaphore.inUse).toBe(2);
    expect(semaphore.waiting).toBe(2);
    a();
    a(); // a second release of the same slot changes nothing
    (await c)();
    await d;
    expect(order).toEqual(["c", "d"]);
    expect(semaphore.inUse).toBe(2);
  });

  it("an aborted waiter leaves the queue and gets the abort reason", async () => {
    const semaphore = new Semaphore(1);
    const release = await semaphore.acquire(new AbortController().signal);
    const controller = new AbortController();
    const waiting = semaphore.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(semaphore.waiting).toBe(0);
    release();
    expect(semaphore.inUse).toBe(0);
  });

  it("an already aborted signal is refused at once", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new Semaphore(1).acquire(controller.signal)).rejects.toBeInstanceOf(Error);
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});

describe("Semaphore.setLimit", () => {
  it("a raised limit hands the new slots to waiters at once, in order", async () => {
    const semaphore = new Semaphore(1);
    const signal = new AbortController().signal;
    await semaphore.acquire(signal);
    const order: string[] = [];
    const b = semaphore.acquire(signal).then((r) => (order.push("b"), r));
    const c = semaphore.acquire(signal).then((r) => (order.push("c"), r));
    semaphore.setLimit(3);
    await Promise.all([b, c]);
    expect(order).toEqual(["b", "c"]);
    expect(semaphore.inUse).toBe(3);
    expect(semaphore.waiting).toBe(0);
  });

  it("a lowered limit keeps held slots and hands none on until under it", async () => {
    const semaphore = new Semaphore(3);
    const signal = new AbortController().signal;
    const held = await Promise.all([1, 2, 3].map(() => semaphore.acquire(signal)));
    let granted = false;
    const waiting = semaphore.acquire(signal).then((r) => ((granted = true), r));
    semaphore.setLimit(1);
    held[0]?.();
    held[1]?.();
    await Promise.resolve();
    expect(granted).toBe(false);
    expect(semaphore.inUse).toBe(1);
    held[2]?.();
    (await waiting)();
    expect(granted).toBe(true);
    expect(semaphore.inUse).toBe(0);
    expect(() => semaphore.setLimit(0)).toThrow(RangeError);
  });
});
