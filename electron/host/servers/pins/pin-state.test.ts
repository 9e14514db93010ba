import { describe, expect, it } from "vitest";
import { PIN_LIMITS } from "../../../../shared/limits.js";
import { admitted, firstPins, observeListing, review, type ListedForm } from "./pin-state.js";
import { canonicalValue, pinnedForm, PIN_CANONICAL_MAX_DEPTH } from "./tool-hash.js";

const T0 = "2026-01-01T00:00:00.000Z";
const T1 = "2026-01-02T00:00:00.000Z";

function listed(wire: Record<string, unknown> & { name: string }): ListedForm {
  return { name: wire.name, ...pinnedForm(wire) };
}

const echo = { name: "echo", description: "Echo.", inputSchema: { type: "object" } };
const add = { name: "add", description: "Add.", inputSchema: { type: "object" } };

describe("tool hash", () => {
  it("ignores key order, and counts every key of the wire object, unknown ones included", () => {
    const a = pinnedForm({ name: "x", inputSchema: { type: "object", properties: {} } });
    const b = pinnedForm({ inputSchema: { properties: {}, type: "object" }, name: "x" });
    expect(a.hash).toBe(b.hash);
    expect(a.json).toBe('{"inputSchema":{"properties":{},"type":"object"},"name":"x"}');
    expect(pinnedForm({ name: "x", "x-new": 1 }).hash).not.toBe(pinnedForm({ name: "x" }).hash);
    const deepSchema = (leaf: string) => {
      let v: unknown = leaf;
      for (let i = 0; i < PIN_CANONICAL_MAX_DEPTH + 10; i++) v = { next: v };
      return { name: "deep", inputSchema: v };
    };
    // Past the canonical depth a change still counts.
    expect(pinnedForm(deepSchema("a")).hash).not.toBe(pinnedForm(deepSchema("b")).hash);
    expect(canonicalValue({ b: 1, a: [{ d: 1, c: 2 }] })).toEqual({ a: [{ c: 2, d: 1 }], b: 1 });
  });
});

describe("pin state", () => {
  it("pins every tool at first acceptance and admits them", () => {
    const pins = firstPins([listed(echo), listed(add)], T0);
    expect(Object.keys(pins.pinned)).toEqual(["echo", "add"]);
    expect(admitted(pins, "echo", listed(echo).hash)).toBe(true);
    const seen = observeListing(pins, [listed(echo), listed(add)], T1);
    expect(seen).toMatchObject({ newlyHeld: [], changed: false });
  });

  it("holds a changed, a new and a removed tool; keeps `since` while the same definition stays held", () => {
    const pins = firstPins([listed(echo), listed(add)], T0);
    const changed = { ...echo, inputSchema: { type: "object", properties: { x: {} } } };
    const extra = { name: "extra", inputSchema: { type: "object" } };
    const seen = observeListing(pins, [listed(changed), listed(extra)], T1);
    expect(seen.newlyHeld.map((c) => [c.tool, c.kind])).toEqual([
      ["echo", "changed"],
      ["extra", "added"],
      ["add", "removed"],
    ]);
    expect(admitted(seen.pins, "echo", listed(changed).hash)).toBe(false);
    const again = observeListing(
      seen.pins,
      [listed(changed), listed(extra)],
      "2026-02-01T00:00:00.000Z",
    );
    expect(again.newlyHeld).toEqual([]);
    expect(again.changed).toBe(false);
    expect(again.pins.held.echo?.since).toBe(T1);
    // The server going back to the pinned definition ends the hold.
    const back = observeListing(again.pins, [listed(echo), listed(add)], T1);
    expect(back.pins.held).toEqual({});
  });

  it("accept re-pins (a removal drops the pin); reject keeps it out until the definition changes again", () => {
    const pins = firstPins([listed(echo), listed(add)], T0);
    const v2 = { ...echo, description: "Echo v2." };
    const held = observeListing(pins, [listed(v2)], T1).pins;
    const rejected = review(held, "echo", "reject", T1);
    expect(rejected.reviewed.map((c) => c.tool)).toEqual(["echo"]);
    expect(rejected.pins.held.echo?.rejected).toBe(true);
    // Listed again unchanged: still rejected, nothing new held.
    const same = observeListing(rejected.pins, [listed(v2)], T1);
    expect(same.newlyHeld).toEqual([]);
    expect(same.pins.held.echo?.rejected).toBe(true);
    // A different definition is held afresh, not rejected.
    const v3 = { ...echo, description: "Echo v3." };
    const changedAgain = observeListing(same.pins, [listed(v3)], T1);
    expect(changedAgain.newlyHeld.map((c) => c.tool)).toEqual(["echo"]);
    expect(changedAgain.pins.held.echo?.rejected).toBe(false);

    const accepted = review(changedAgain.pins, null, "accept", T1);
    expect(accepted.reviewed.map((c) => [c.tool, c.kind])).toEqual([
      ["echo", "changed"],
      ["add", "removed"],
    ]);
    expect(accepted.pins.held).toEqual({});
    expect(accepted.pins.pinned.add).toBeUndefined();
    expect(admitted(accepted.pins, "echo", listed(v3).hash)).toBe(true);
  });

  it("keeps a definition over PIN_LIMITS.definitionMaxChars as its hash only", () => {
    const big = { name: "big", description: "d".repeat(PIN_LIMITS.definitionMaxChars) };
    const pins = firstPins([listed(big)], T0);
    expect(pins.pinned.big?.definition).toBeNull();
    expect(pins.pinned.big?.hash).toBe(listed(big).hash);
  });
});
