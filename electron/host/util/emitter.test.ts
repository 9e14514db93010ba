import { describe, expect, it } from "vitest";
import { Emitter } from "./emitter.js";

type Events = { status: (state: string, n: number) => void; done: () => void };

describe("Emitter", () => {
  it("calls each listener of an event with its arguments, in subscription order", () => {
    const emitter = new Emitter<Events>();
    const seen: string[] = [];
    emitter.on("status", (state, n) => seen.push(`a ${state} ${n}`));
    emitter.on("status", (state) => seen.push(`b ${state}`));
    emitter.on("done", () => seen.push("done"));
    emitter.emit("status", "ready", 2);
    expect(seen).toEqual(["a ready 2", "b ready"]);
  });

  it("unsubscribes, even from inside a listener, without skipping the others", () => {
    const emitter = new Emitter<Events>();
    const seen: string[] = [];
    const off = emitter.on("done", () => {
      seen.push("once");
      off();
    });
    emitter.on("done", () => seen.push("always"));
    emitter.emit("done");
    emitter.emit("done");
    expect(seen).toEqual(["once", "always", "always"]);
  });

  it("reports a listener that throws and still calls the next one", () => {
    const errors: [string, unknown][] = [];
    const emitter = new Emitter<Events>((event, error) => errors.push([event, error]));
    const seen: string[] = [];
    emitter.on("done", () => {
      throw new Error("broken");
    });
    emitter.on("done", () => seen.push("next"));
    expect(() => emitter.emit("done")).not.toThrow();
    expect(seen).toEqual(["next"]);
    expect(errors).toEqual([["done", new Error("broken")]]);
  });

  it("clear drops every listener", () => {
    const emitter = new Emitter<Events>();
    let calls = 0;
    emitter.on("done", () => calls++);
    emitter.clear();
    emitter.emit("done");
    expect(calls).toBe(0);
  });
});
