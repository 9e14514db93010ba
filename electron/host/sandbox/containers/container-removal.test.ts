import { describe, expect, it } from "vitest";
import { removeContainer, REMOVE_RETRY_DELAYS_MS } from "./container-removal.js";

/** An error as docker-modem reports an engine's answer. */
function engineError(statusCode: number, message: string): Error {
  return Object.assign(new Error(`(HTTP code ${statusCode}) ${message}`), { statusCode });
}

// What Docker 20.10 answered in CI to a forced removal racing the container's own exit.
const EXIT_RACE = engineError(
  500,
  "server error - Could not kill running container 7293d813d91b, cannot remove - Container 7293d813d91b is not running",
);

/** A container whose removals answer with `outcomes` in turn (undefined: removed). */
function fakeContainer(outcomes: (Error | undefined)[]) {
  const calls: unknown[] = [];
  return {
    calls,
    remove(options: unknown): Promise<void> {
      calls.push(options);
      const outcome = outcomes.shift();
      return outcome ? Promise.reject(outcome) : Promise.resolve();
    },
  };
}

describe("removeContainer", () => {
  it("tries again when the engine fails a forced removal racing the container's exit", async () => {
    const container = fakeContainer([EXIT_RACE]);
    const waits: number[] = [];
    await removeContainer(container, (ms) => {
      waits.push(ms);
      return Promise.resolve();
    });
    expect(container.calls).toEqual([{ force: true }, { force: true }]);
    expect(waits).toEqual([REMOVE_RETRY_DELAYS_MS[0]]);
  });

  it("gives up after its retries, with the engine's error", async () => {
    const tries = REMOVE_RETRY_DELAYS_MS.length + 1;
    const container = fakeContainer(Array.from({ length: tries + 1 }, () => EXIT_RACE));
    const waits: number[] = [];
    await expect(
      removeContainer(container, (ms) => {
        waits.push(ms);
        return Promise.resolve();
      }),
    ).rejects.toBe(EXIT_RACE);
    expect(container.calls).toHaveLength(tries);
    expect(waits).toEqual([...REMOVE_RETRY_DELAYS_MS]);
  });

  it("takes a container already gone, or being removed, as removed", async () => {
    for (const answer of [
      engineError(404, "no such container"),
      engineError(409, "removal is already in progress"),
    ]) {
      const container = fakeContainer([answer]);
      await removeContainer(container, () => Promise.reject(new Error("no wait expected")));
      expect(container.calls).toHaveLength(1);
    }
  });

  it("does not retry when the engine cannot be reached: the startup sweep takes the container", async () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED"), {
      code: "ECONNREFUSED",
    });
    const container = fakeContainer([refused]);
    await expect(
      removeContainer(container, () => Promise.reject(new Error("no wait expected"))),
    ).rejects.toBe(refused);
    expect(container.calls).toHaveLength(1);
  });
});
