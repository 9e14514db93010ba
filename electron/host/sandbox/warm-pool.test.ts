import { describe, expect, it } from "vitest";
import type { SandboxContainer } from "./sandbox-container.js";
import { WarmPool } from "./warm-pool.js";

/** A stand-in container: a label (the runtime it was made under) and whether it was removed. */
function fakeContainer(label: string) {
  const fake = {
    label,
    removed: false,
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
    const pool = new WarmPool(() => {
      const container = fakeContainer(label);
      made.push(container);
      // Each start waits until the test lets it finish.
      return new Promise<SandboxContainer>((resolve) =>
        gates.push(() => resolve(container as unknown as SandboxContainer)),
      );
    }, 2);
    pool.fill();
    gates.shift()!(); // one runc container ready, one still starting
    await Promise.resolve();
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
    const pool = new WarmPool(() => {
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
    }, 2);
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
    const asked: boolean[] = [];
    const pool = new WarmPool((warm) => {
      asked.push(warm);
      return Promise.resolve(fakeContainer("runc") as unknown as SandboxContainer);
    }, 1);
    pool.fill();
    expect(asked).toEqual([true]);
    await pool.settled();
    await pool.take(); // the warm one; a warm replacement starts
    expect(asked).toEqual([true, true]);
    pool.resize(0);
    await pool.take(); // nothing pooled: a cold one, and no replacement
    expect(asked).toEqual([true, true, false]);
    await pool.drain();
  });
});
