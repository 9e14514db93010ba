// The pin store against servers that try to grow its file past what it can read back: several
// hostile servers, each listing TOOLS_MAX_PER_SERVER tools with the longest names
// the catalog takes, on a real file. Before PIN_STORED_MAX_BYTES the file passed
// PIN_FILE_MAX_BYTES, and the next start read no pins at all.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { pinFileSchema, PIN_FILE_MAX_BYTES } from "./pin-file.js";
import { heldNow } from "./seen-definitions.js";
import { pinnedForm } from "./tool-hash.js";
import { ToolPins } from "./tool-pins.js";
import type { ListedForm } from "./pin-state.js";
import { TOOLS_MAX_PER_SERVER } from "../tool-listing.js";
import { PIN_STORED_MAX_BYTES } from "./pin-size.js";

describe("ToolPins", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-tool-pins-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("stays readable when hostile servers list as many long-named tools as they may", async () => {
    const file = path.join(dir, "pins.json");
    const { pins } = await ToolPins.open(file);
    const listing = (server: number): ListedForm[] =>
      Array.from({ length: TOOLS_MAX_PER_SERVER }, (_, i) => {
        const name = `s${server}_${i}_`.padEnd(PROTOCOL_LIMITS.toolNameMaxChars, "x");
        return { name, ...pinnedForm({ name, inputSchema: { type: "object" } }) };
      });
    const servers = 6;
    const heldPerServer: number[] = [];
    for (let s = 0; s < servers; s++) {
      const forms = listing(s);
      heldPerServer.push(pins.observe(`evil${s}`, forms).size);
    }
    await pins.close();
    expect(statSync(file).size).toBeLessThanOrEqual(PIN_FILE_MAX_BYTES);
    expect(statSync(file).size).toBeLessThanOrEqual(PIN_STORED_MAX_BYTES);
    // The first servers were pinned; the ones that did not fit are held whole, not admitted.
    expect(heldPerServer[0]).toBe(0);
    expect(heldPerServer.at(-1)).toBe(TOOLS_MAX_PER_SERVER);
    // And the next start reads the pins back.
    const again = await ToolPins.open(file);
    expect(again.problem).toBeNull();
    expect(again.pins.observe("evil0", listing(0)).size).toBe(0);
    expect(again.pins.observe(`evil${servers - 1}`, listing(servers - 1)).size).toBe(
      TOOLS_MAX_PER_SERVER,
    );
    await again.pins.close();
  }, 120_000);

  it("holds every server's tools after an unusable file, and keeps holding after a restart", async () => {
    const file = path.join(dir, "corrupt.json");
    writeFileSync(file, "[]");
    const forms = [{ name: "t", ...pinnedForm({ name: "t", description: "T." }) }];
    const opened = await ToolPins.open(file);
    expect([...opened.pins.observe("a", forms)]).toEqual(["t"]);
    expect(opened.problem).toContain("held until you review");
    await opened.pins.close();
    const again = await ToolPins.open(file);
    expect(again.problem).toBeNull();
    // A server never listed before the restart is held too: no pin on sight after the loss.
    expect([...again.pins.observe("b", forms)]).toEqual(["t"]);
    expect([...again.pins.observe("a", forms)]).toEqual(["t"]);
    await again.pins.review("a", heldNow(again.pins.current.servers.a), "accept", "cli");
    expect(again.pins.observe("a", forms).size).toBe(0);
    await again.pins.close();
  });

  it("ends 'hold everything' once every configured server is reviewed, and not before", async () => {
    const file = path.join(dir, "reviewed-after-corrupt.json");
    writeFileSync(file, "{ not json");
    const form = (name: string) => [{ name, ...pinnedForm({ name, description: `${name}.` }) }];
    const configured = () => ["a", "b"];
    const first = await ToolPins.open(file, { configured });
    expect([...first.pins.observe("a", form("x"))]).toEqual(["x"]);
    await first.pins.review("a", heldNow(first.pins.current.servers.a), "accept", "app");
    // Server b has not listed yet: its tools must not be pinned on sight, so it still holds.
    expect(first.pins.current.holdUnpinned).toBe(true);
    await first.pins.close();

    const second = await ToolPins.open(file, { configured });
    expect(second.pins.current.holdUnpinned).toBe(true);
    expect(second.pins.observe("a", form("x")).size).toBe(0);
    expect([...second.pins.observe("b", form("y"))]).toEqual(["y"]);
    // Rejecting counts as reviewed: nothing is left to review, so the hold ends (on disk too).
    await second.pins.review("b", heldNow(second.pins.current.servers.b, "y"), "reject", "app");
    expect(second.pins.current.holdUnpinned).toBeUndefined();
    expect([...second.pins.observe("b", form("y"))]).toEqual(["y"]);
    await second.pins.close();
    expect(
      pinFileSchema.parse(JSON.parse(readFileSync(file, "utf8"))).holdUnpinned,
    ).toBeUndefined();

    const third = await ToolPins.open(file, { configured: () => ["a", "b", "c"] });
    // A server added now is a first listing again: pinned on sight.
    expect(third.pins.observe("c", form("z")).size).toBe(0);
    expect(third.pins.current.servers.c?.pinned.z).toBeDefined();
    await third.pins.close();
  });
});
