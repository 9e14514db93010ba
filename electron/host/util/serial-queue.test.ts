import { describe, expect, it } from "vitest";
import { SerialQueue } from "./serial-queue.js";

describe("SerialQueue", () => {
  it("runs jobs one at a time in call order", async () => {
    const queue = new SerialQueue();
    const order: string[] = [];
    const job = (name: string, ms: number) => () =>
      new Promise<string>((resolve) => {
        order.push(`start ${name}`);
        setTimeout(() => {
          order.push(`end ${name}`);
          resolve(name);
        }, ms);
      });
    const results = await Promise.all([queue.run(job("a", 20)), queue.run(job("b", 1))]);
    expect(results).toEqual(["a", "b"]);
    expect(order).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("a failed job rejects its own promise and the next one still runs", async () => {
    const queue = new SerialQueue();
    const failed = queue.run(() => Promise.reject(new Error("no")));
    const next = queue.run(() => Promise.resolve(2));
    await expect(failed).rejects.toThrow("no");
    await expect(next).resolves.toBe(2);
  });
});
