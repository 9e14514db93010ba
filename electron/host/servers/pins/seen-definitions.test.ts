import { describe, expect, it } from "vitest";
import type { ServerPins } from "./pin-file.js";
import {
  heldNow,
  REVIEW_HASH_CHARS,
  reviewHash,
  staleDefinitions,
  staleMessage,
} from "./seen-definitions.js";

const hash = (c: string) => c.repeat(64);
const at = "2026-01-01T00:00:00.000Z";
const pins: ServerPins = {
  pinned: { echo: { hash: hash("a"), definition: null, pinnedAt: at } },
  held: {
    echo: { hash: hash("b"), definition: null, since: at, rejected: false },
    gone: { hash: null, definition: null, since: at, rejected: true },
  },
};

describe("seen definitions", () => {
  it("finds the definitions shown that are no longer the ones held", () => {
    expect(staleDefinitions(pins, heldNow(pins))).toEqual([]);
    expect(
      staleDefinitions(pins, [
        { tool: "echo", hash: hash("c") },
        { tool: "gone", hash: null },
        { tool: "keep", hash: hash("d") },
        // Not an own key of the held map: never read from its prototype.
        { tool: "__proto__", hash: null },
      ]),
    ).toEqual([
      { tool: "echo", seen: hash("c"), held: hash("b") },
      { tool: "keep", seen: hash("d"), held: undefined },
      { tool: "__proto__", seen: null, held: undefined },
    ]);
    expect(staleDefinitions(undefined, [{ tool: "echo", hash: hash("b") }])).toHaveLength(1);
    expect(heldNow(pins, "gone")).toEqual([{ tool: "gone", hash: null }]);
  });

  it("says what changed again and what is no longer held, naming a few", () => {
    const changed = (tool: string) => ({ tool, seen: hash("c"), held: hash("b") });
    expect(staleMessage("toy", [changed("echo")], "accept")).toBe(
      'Nothing was accepted: the definition of tool "echo" of server "toy" changed again ' +
        "after it was shown: review the new definition.",
    );
    expect(
      staleMessage(
        "toy",
        [
          ...["a", "b", "c", "d"].map(changed),
          { tool: "x".repeat(500), seen: null, held: undefined },
        ],
        "reject",
      ),
    ).toBe(
      'Nothing was rejected: the definition of tools "a", "b", "c" and 1 more of server "toy" ' +
        `changed again after it was shown: review the new definition; tool "${"x".repeat(100)}…" ` +
        'of server "toy" is no longer held for review.',
    );
  });

  it("shows 32 hex characters of a held hash, what --hash needs at least", () => {
    expect(REVIEW_HASH_CHARS).toBe(32);
    expect(reviewHash(hash("b"))).toBe("b".repeat(32));
    expect(reviewHash(null)).toBe("-");
  });
});
