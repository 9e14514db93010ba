// Writers of one pin file racing for real, as separate processes: a host's pin store saving
// after each of many listings, and several `codemode servers accept` at once. Each reads the
// file, changes it and writes it whole; before the pin file's lock, a later writer put back
// what it had read, and accepts (or the host's new pins) were lost.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pinFileBeside, pinFileSchema, type PinFile } from "./pin-file.js";
import { pinnedForm } from "./tool-hash.js";
import { startRacing, type RacingProcess } from "../../../../test-support/racing-process.js";

function start(args: string[]): RacingProcess {
  return startRacing("pin-writer.ts", args);
}

describe("pin file writers racing", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-pin-race-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loses neither a host's saves nor any of several CLI accepts made at the same time", async () => {
    const config = path.join(dir, "servers.json");
    const file = pinFileBeside(config);
    const at = new Date().toISOString();
    const form = (description: string) =>
      pinnedForm({ name: "tool", description, inputSchema: { type: "object" } });
    const clis = 6;
    const state: PinFile = { version: 1, servers: {} };
    for (let i = 0; i < clis; i++) {
      const pinned = form("v1");
      const changed = form("v2");
      state.servers[`held${i}`] = {
        pinned: { tool: { hash: pinned.hash, definition: pinned.definition, pinnedAt: at } },
        held: {
          tool: { hash: changed.hash, definition: changed.definition, since: at, rejected: false },
        },
      };
    }
    writeFileSync(file, JSON.stringify(state));
    // Every process has loaded its code before "go"; the host then saves one listing after
    // another until every accept is done, and the accepts land 150 ms apart meanwhile.
    const host = start(["host", file]);
    const accepts = Array.from({ length: clis }, (_, i) =>
      start(["cli", config, `held${i}`, String(100 + 150 * i)]),
    );
    await Promise.all([host, ...accepts].map((w) => w.ready));
    for (const w of [host, ...accepts]) w.say("go");
    const accepted = await Promise.all(accepts.map((w) => w.exited));
    host.say("stop");
    const hosted = await host.exited;
    for (const result of [hosted, ...accepted])
      expect(result, result.stderr).toMatchObject({ code: 0 });
    const saves = Number(hosted.stdout.trim().split("\n").pop());
    // The host kept saving while the accepts ran (how many times depends on the machine's
    // load: more than the accepts when idle, 5 at load 30); what the race may lose is checked
    // below, for every accept and every save.
    expect(saves).toBeGreaterThanOrEqual(2);

    const after = pinFileSchema.parse(JSON.parse(readFileSync(file, "utf8")));
    const v2 = form("v2").hash;
    for (let i = 0; i < clis; i++) {
      // Accepted: pinned at the held definition, nothing held any more.
      expect(after.servers[`held${i}`], `held${i}`).toMatchObject({
        held: {},
        pinned: { tool: { hash: v2 } },
      });
    }
    for (let i = 0; i < saves; i++) expect(after.servers[`new${i}`], `new${i}`).toBeDefined();
  }, 120_000);
});
