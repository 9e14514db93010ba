import { describe, expect, it } from "vitest";
import type { HeldChange } from "../../servers/pins/pin-state.js";
import {
  HeldLogLimiter,
  PIN_HELD_LOG_WINDOW_MS,
  PIN_HELD_LOGGED_PER_SERVER,
} from "./held-log-limiter.js";

const changes = (count: number, prefix = "t"): HeldChange[] =>
  Array.from({ length: count }, (_, i) => ({
    tool: `${prefix}${i}`,
    kind: "added",
    pinnedHash: null,
    heldHash: "a".repeat(64),
  }));

describe("HeldLogLimiter", () => {
  const limit = PIN_HELD_LOGGED_PER_SERVER;

  it("logs a listing within the limit as it is, with no count", () => {
    const logged = new HeldLogLimiter(() => 0).admit("s", changes(3));
    expect(logged.map((h) => h.change.tool)).toEqual(["t0", "t1", "t2"]);
    expect(logged.every((h) => h.notLogged === undefined)).toBe(true);
  });

  it("logs up to the limit a window; the last logged entry, or the next window's first, counts the rest", () => {
    let now = 1_000_000;
    const limiter = new HeldLogLimiter(() => now);
    const first = limiter.admit("s", changes(limit + 7));
    expect(first).toHaveLength(limit);
    expect(first.at(-1)?.notLogged).toBe(7);
    expect(first.slice(0, -1).every((h) => h.notLogged === undefined)).toBe(true);
    // Over the limit for the rest of the window: counted, not logged.
    expect(limiter.admit("s", changes(1000, "u"))).toEqual([]);
    // Another server has a window of its own.
    expect(limiter.admit("other", changes(1))).toHaveLength(1);

    now += PIN_HELD_LOG_WINDOW_MS;
    const next = limiter.admit("s", changes(2, "v"));
    expect(next.map((h) => [h.change.tool, h.notLogged])).toEqual([
      ["v0", undefined],
      ["v1", 1000],
    ]);
    expect(limiter.admit("s", changes(1, "w"))[0]?.notLogged).toBeUndefined();
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ PIN_HELD_LOGGED_PER_SERVER, PIN_HELD_LOG_WINDOW_MS }).toEqual({
      PIN_HELD_LOGGED_PER_SERVER: 500,
      PIN_HELD_LOG_WINDOW_MS: 60 * 60_000,
    });
  });
});
