import { describe, expect, it } from "vitest";
import { RunGate } from "./run-gate.js";

describe("RunGate", () => {
  it("admits up to the cap and queues the rest in order", async () => {
    const gate = new RunGate(1, 5_000);
    const order: string[] = [];
    const releaseA = await gate.enter();
    const b = gate.enter().then((release) => {
      order.push("b");
      return release;
    });
    const c = gate.enter().then((release) => {
      order.push("c");
      release();
    });
    expect(gate.queued).toBe(2);
    releaseA();
    (await b)();
    await c;
    expect(order).toEqual(["b", "c"]);
    expect(gate.active).toBe(0);
  });

  it("refuses a run that waited past the queue timeout with a clear message", async () => {
    const gate = new RunGate(1, 50);
    const release = await gate.enter();
    await expect(gate.enter()).rejects.toThrow(/Code Mode is busy: 1 runs are running/);
    release();
  });

  it("refuses a run cancelled before it reached the gate, with or without room", async () => {
    const gate = new RunGate(1, 60_000);
    const cancelled = AbortSignal.abort();
    await expect(gate.enter(cancelled)).rejects.toThrow("the run was cancelled while it waited");
    const release = await gate.enter();
    await expect(gate.enter(cancelled)).rejects.toThrow("the run was cancelled while it waited");
    expect(gate.queued).toBe(0);
    release();
    expect(gate.active).toBe(0);
  });

  it("refuses new runs while paused", async () => {
    const gate = new RunGate(2);
    gate.paused = true;
    await expect(gate.enter()).rejects.toThrow(/paused/);
  });
});
