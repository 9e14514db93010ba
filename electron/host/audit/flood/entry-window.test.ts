import { describe, expect, it } from "vitest";
import { EntryWindow } from "./entry-window.js";

describe("EntryWindow", () => {
  it("admits up to its bound a window, counts the rest, and gives the count once", () => {
    let now = 1_000;
    const window = new EntryWindow({ logged: 2, windowMs: 100 }, () => now);
    expect([window.admit(), window.admit(), window.admit(), window.admit()]).toEqual([
      0,
      0,
      null,
      null,
    ]);
    now += 100;
    expect(window.admit()).toBe(2);
    expect(window.admit()).toBe(0);
    expect(window.admit()).toBeNull();
    expect(window.takeNotLogged()).toBe(1);
    expect(window.takeNotLogged()).toBe(0);
  });
  it("readmits an event it left out once a window has room, and no longer counts it", () => {
    let now = 1_000;
    const window = new EntryWindow({ logged: 1, windowMs: 100 }, () => now);
    expect([window.admit(), window.admit(), window.admit()]).toEqual([0, null, null]);
    expect(window.readmit()).toBeNull();
    now += 100;
    // One of the two left out is logged after all: the other is the one counted.
    expect(window.readmit()).toBe(1);
    expect(window.readmit()).toBeNull();
    expect(window.admit()).toBeNull();
    expect(window.takeNotLogged()).toBe(1);
  });
});
