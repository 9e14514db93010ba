import { describe, expect, it } from "vitest";
import {
  ClientEntryLimiter,
  CLIENT_ENTRIES_WINDOW_MS,
  CLIENT_ENTRIES_LOGGED,
} from "./client-entry-limiter.js";

describe("ClientEntryLimiter", () => {
  const limit = CLIENT_ENTRIES_LOGGED;

  it("logs connections up to the limit a window; the next one logged counts the rest", () => {
    let now = 1_000_000;
    const limiter = new ClientEntryLimiter(() => now);
    for (let i = 0; i < limit; i++) expect(limiter.connected(`c${i}`)).toBe(0);
    expect(limiter.connected("over1")).toBeNull();
    expect(limiter.connected("over2")).toBeNull();
    // Leaving is logged only for a connection whose coming was.
    expect(limiter.disconnected("c0")).toBe(true);
    expect(limiter.disconnected("c0")).toBe(false);
    expect(limiter.disconnected("over1")).toBe(false);
    expect(limiter.disconnected("never-connected")).toBe(false);

    now += CLIENT_ENTRIES_WINDOW_MS;
    expect(limiter.connected("next")).toBe(2);
    expect(limiter.connected("after")).toBe(0);
  });

  it("gives the count not yet logged once, for the app's stop to write", () => {
    const limiter = new ClientEntryLimiter(() => 0);
    for (let i = 0; i < limit + 3; i++) limiter.connected(`c${i}`);
    expect(limiter.takeNotLogged()).toBe(3);
    expect(limiter.takeNotLogged()).toBe(0);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ CLIENT_ENTRIES_LOGGED, CLIENT_ENTRIES_WINDOW_MS }).toEqual({
      CLIENT_ENTRIES_LOGGED: 100,
      CLIENT_ENTRIES_WINDOW_MS: 60 * 60_000,
    });
  });
});
