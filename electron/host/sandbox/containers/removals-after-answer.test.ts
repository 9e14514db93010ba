import { describe, expect, it } from "vitest";
import { until } from "../../../../test-support/wait.js";
import { REMOVAL_AFTER_ANSWER_MAX_MS, RemovalsAfterAnswer } from "./removals-after-answer.js";

const never = new Promise<void>(() => undefined);

describe("RemovalsAfterAnswer", () => {
  it("removes once the answer is out, not before", async () => {
    const removals = new RemovalsAfterAnswer();
    let answered = (): void => undefined;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    let removed = false;
    const done = removals.remove(answer, () => {
      removed = true;
      return Promise.resolve();
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(removed).toBe(false);
    answered();
    await done;
    expect(removed).toBe(true);
  });

  it("waits for an answer at most its bound: a container that faked its end is not kept", async () => {
    expect(REMOVAL_AFTER_ANSWER_MAX_MS).toBe(1_000);
    const removals = new RemovalsAfterAnswer(20);
    let removed = false;
    void removals.remove(never, () => {
      removed = true;
      return Promise.resolve();
    });
    await until(() => removed, "the removal after the bound");
  });

  it("now() lets every held removal go (a sandbox shutting down)", async () => {
    const removals = new RemovalsAfterAnswer();
    let removed = 0;
    const held = [1, 2].map(() =>
      removals.remove(never, () => {
        removed += 1;
        return Promise.resolve();
      }),
    );
    removals.now();
    await Promise.all(held);
    expect(removed).toBe(2);
  });
});
