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
