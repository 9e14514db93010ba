import { describe, expect, it } from "vitest";
import type { PinFile } from "./pin-file.js";
import { movePins, pairRenames, renamesSince, withLaunches } from "./pin-renames.js";

const at = "2026-01-01T00:00:00.000Z";
const h = (c: string) => c.repeat(64);
const pins = (tool: string, held = false) => ({
  pinned: { [tool]: { hash: h("a"), definition: null, pinnedAt: at } },
  held: held ? { [tool]: { hash: h("b"), definition: null, since: at, rejected: true } } : {},
});

describe("pairRenames", () => {
  it("pairs a gone server and a new one that start the same way", () => {
    expect(
      pairRenames(
        [
          { name: "mail", launch: "L1" },
          { name: "files", launch: "L2" },
        ],
        [
          { name: "docs", launch: "L2" },
          { name: "email", launch: "L1" },
          { name: "new", launch: "L3" },
        ],
      ),
    ).toEqual(
      new Map([
        ["files", "docs"],
        ["mail", "email"],
      ]),
    );
  });

  it("pairs the one gone with the one new, however it starts now", () => {
    expect(
      pairRenames([{ name: "mail", launch: "L1" }], [{ name: "email", launch: "L9" }]),
    ).toEqual(new Map([["mail", "email"]]));
    // Pins from before fingerprints were kept: the same rule.
    expect(
      pairRenames([{ name: "mail", launch: undefined }], [{ name: "email", launch: "L1" }]),
    ).toEqual(new Map([["mail", "email"]]));
  });

  it("pairs nothing it cannot tell apart", () => {
    const twoGone = [
      { name: "a", launch: "L" },
      { name: "b", launch: "L" },
    ];
    expect(
      pairRenames(twoGone, [
        { name: "c", launch: "L" },
        { name: "d", launch: "M" },
      ]),
    ).toEqual(new Map());
    expect(pairRenames([], [{ name: "c", launch: "L" }])).toEqual(new Map());
    expect(pairRenames([{ name: "c", launch: "L" }], [])).toEqual(new Map());
  });
});

describe("moving pins", () => {
  const file: PinFile = {
    version: 1,
    servers: { mail: pins("send", true), other: pins("x") },
    launches: { mail: h("1"), other: h("2") },
  };

  it("moves pinned and held (rejected marks kept) and the fingerprint to the new name", () => {
    const { file: moved, moves } = movePins(file, new Map([["mail", "email"]]));
    expect(Object.keys(moved.servers).sort()).toEqual(["email", "other"]);
    expect(moved.servers.email).toBe(file.servers.mail);
    expect(moved.servers.email?.held.send?.rejected).toBe(true);
    expect(moved.launches).toEqual({ email: h("1"), other: h("2") });
    expect(moves).toEqual([{ from: "mail", to: "email", pins: file.servers.mail }]);
    // A name with no pins moves nothing.
    expect(movePins(file, new Map([["nothing", "x"]])).file).toBe(file);
  });

  it("finds the renames the file shows against the servers configured now", () => {
    const launches = new Map([
      ["email", h("1")],
      ["other", h("2")],
    ]);
    expect(renamesSince(file, launches)).toEqual(new Map([["mail", "email"]]));
    // Every server with pins still configured: nothing to find.
    expect(renamesSince(file, new Map([...launches, ["mail", h("1")]]))).toEqual(new Map());
  });

  it("keeps the servers' fingerprints, the same object when they are already kept", () => {
    expect(withLaunches(file, new Map([["mail", h("1")]]))).toBe(file);
    expect(withLaunches(file, new Map())).toBe(file);
    expect(withLaunches(file, new Map([["mail", h("3")]])).launches).toEqual({
      mail: h("3"),
      other: h("2"),
    });
  });
});
