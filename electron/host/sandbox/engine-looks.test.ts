import { afterEach, describe, expect, it, vi } from "vitest";
import type { DockerStatusView } from "../../../shared/api/api-views.js";
import { EngineLooks, FIRST_LOOK_RUN_WAIT_MS } from "./engine-looks.js";

const view = { state: "not-running" } as DockerStatusView;

/** Whether `promise` has settled once pending callbacks have run. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("EngineLooks", () => {
  it("has runs wait 10 s at most for the first look, as docs/faults.md says", () => {
    expect(FIRST_LOOK_RUN_WAIT_MS).toBe(10_000);
  });

  it("keeps no run waiting before any look was asked for", async () => {
    expect(await settledYet(new EngineLooks(() => "").settled())).toBe(true);
  });

  it("joins the look on its way for the same engine, and settles runs when it ends", async () => {
    const looks = new EngineLooks(() => "a");
    let end = (): void => undefined;
    let started = 0;
    const look = () => {
      started++;
      return new Promise<DockerStatusView>((resolve) => (end = () => resolve(view)));
    };
    const first = looks.join("a", look);
    expect(looks.join("a", look)).toBe(first);
    expect(started).toBe(1);
    const waiting = looks.settled();
    expect(await settledYet(waiting)).toBe(false);
    end();
    await first;
    expect(await settledYet(waiting)).toBe(true);
  });

  it("settles nothing with a look for an engine no longer chosen; close frees the runs", async () => {
    let chosen = "a";
    const looks = new EngineLooks(() => chosen);
    const first = looks.join("a", () => Promise.resolve(view));
    chosen = "b";
    looks.choose();
    await first;
    const waiting = looks.settled();
    expect(await settledYet(waiting)).toBe(false);
    looks.close();
    expect(await settledYet(waiting)).toBe(true);
  });

  it("bounds the wait from the look's start, not from each caller's", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const looks = new EngineLooks(() => "a");
    void looks.join("a", () => new Promise<DockerStatusView>(() => undefined));
    const first = looks.settled();
    await vi.advanceTimersByTimeAsync(FIRST_LOOK_RUN_WAIT_MS - 1);
    // A second caller (the supervisor after the engine) gets only what is left.
    const second = looks.settled();
    expect(await settledYet(first)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settledYet(first)).toBe(true);
    expect(await settledYet(second)).toBe(true);
  });

  it("stops a run's wait when its signal aborts", async () => {
    const looks = new EngineLooks(() => "a");
    void looks.join("a", () => new Promise<DockerStatusView>(() => undefined));
    const cancel = new AbortController();
    const waiting = looks.settled(cancel.signal);
    expect(await settledYet(waiting)).toBe(false);
    cancel.abort();
    expect(await settledYet(waiting)).toBe(true);
  });
});
