import { describe, expect, it } from "vitest";
import { TaintRegistry, type TaintChange } from "./taint.js";

const call = { server: "notes", tool: "search", pyName: "notes__search" };

describe("TaintRegistry", () => {
  it("records the first private call per client with the injected clock", () => {
    let t = 0;
    const registry = new TaintRegistry({ now: () => new Date(++t * 1000) });
    expect(registry.isTainted("a")).toBe(false);
    expect(registry.taint("a", call)).toEqual({ client: "a", ...call, at: new Date(1000) });
    // A later private call keeps the first record.
    expect(registry.taint("a", { server: "vault", tool: "get", pyName: "vault__get" })).toBe(
      undefined,
    );
    expect(registry.get("a")?.pyName).toBe("notes__search");
    expect(registry.isTainted("b")).toBe(false);
    expect(registry.list()).toHaveLength(1);
  });

  it("reset clears one client only and can taint again afterwards", () => {
    const registry = new TaintRegistry();
    registry.taint("a", call);
    registry.taint("b", call);
    expect(registry.reset("a")).toBe(true);
    expect(registry.reset("a")).toBe(false);
    expect(registry.isTainted("a")).toBe(false);
    expect(registry.isTainted("b")).toBe(true);
    expect(registry.taint("a", call)).toBeDefined();
  });

  it("listeners hear taints and resets, and can unsubscribe", () => {
    const registry = new TaintRegistry();
    const heard: TaintChange["type"][] = [];
    const off = registry.onChange((change) => heard.push(change.type));
    registry.taint("a", call);
    registry.taint("a", call);
    registry.reset("a");
    registry.reset("a");
    off();
    registry.taint("a", call);
    expect(heard).toEqual(["tainted", "reset"]);
  });

  it("a throwing listener cannot undo a taint or silence the others", () => {
    const errors: unknown[] = [];
    const registry = new TaintRegistry({ onListenerError: (e) => errors.push(e) });
    let heard = 0;
    registry.onChange(() => {
      throw new Error("ui gone");
    });
    registry.onChange(() => heard++);
    registry.taint("a", call);
    expect(registry.isTainted("a")).toBe(true);
    expect(heard).toBe(1);
    expect(errors).toHaveLength(1);
  });
});
