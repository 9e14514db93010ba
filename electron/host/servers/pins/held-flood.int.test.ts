// A hostile wrapped server cannot flood the audit log through its tool list: it sends
// notifications/tools/list_changed again and again, and lists a thousand tools of fresh names
// each time. Every one is held for review (out of the catalog, as it should be), but each
// listing used to write one tool_held entry per tool, with no bound: a server doing this for a
// minute wrote hundreds of MiB, and the size cap then removed the oldest audit files, the runs
// and calls the server may want forgotten among them. Now a server's held definitions are
// logged one by one up to PIN_HELD_LOGGED_PER_SERVER per window; the rest are counted in
// the next entry logged. A real stdio server process and a real host; no Docker needed.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../api/api-dispatcher.js";
import { CodeModeHost } from "../../app/code-mode-host.js";
import { until } from "../../../../test-support/wait.js";
import { listFloodServer } from "../../../../test-support/list-flood-server.js";
import { startHostWithoutDocker } from "../../../../test-support/daemon.js";
import { PIN_HELD_LOGGED_PER_SERVER } from "../../audit/flood/held-log-limiter.js";

/** Listings after the first, each of TOOLS_PER_LISTING tools no listing had before. */
const FLOOD_LISTINGS = 6;
const TOOLS_PER_LISTING = 1000;

describe("a server flooding its tool list", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-held-flood-"));
  const script = path.join(home, "flood-server.cjs");
  let host: CodeModeHost;

  const auditLines = (): string[] => {
    const dir = path.join(home, "audit");
    return readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .flatMap((name) => readFileSync(path.join(dir, name), "utf8").split("\n"))
      .filter((line) => line !== "");
  };
  const heldCount = (): number => host.serverViews().find((s) => s.name === "flood")?.held ?? -1;

  beforeAll(async () => {
    writeFileSync(
      script,
      listFloodServer({ listings: FLOOD_LISTINGS, perListing: TOOLS_PER_LISTING }),
    );
    host = await startHostWithoutDocker(home);
    const saved = await dispatchApi(host.api, "servers.upsert", {
      name: "flood",
      entry: { command: process.execPath, args: [script], env: {} },
    });
    expect(saved.ok).toBe(true);
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("holds every new tool, and logs at most its limit of tool_held entries, counting the rest", async () => {
    // The last listing holds its thousand (and the seed, removed), the earlier ones are gone.
    const lastHeld = TOOLS_PER_LISTING + 1;
    await until(() => heldCount() === lastHeld, "the last listing held", 60_000);
    // Whatever is held stays out of the catalog: only a pinned, unchanged tool is callable.
    expect(host.engine.catalog.tools.map((t) => t.pyName)).toEqual([]);
    await host.auditDurable();

    const held = auditLines()
      .map((line) => JSON.parse(line) as { kind: string; server?: string; notLogged?: number })
      .filter((entry) => entry.kind === "tool_held" && entry.server === "flood");
    // The flood held FLOOD_LISTINGS * TOOLS_PER_LISTING definitions, plus the seed's removal.
    expect(FLOOD_LISTINGS * TOOLS_PER_LISTING).toBeGreaterThan(PIN_HELD_LOGGED_PER_SERVER * 2);
    expect(held.length).toBeLessThanOrEqual(PIN_HELD_LOGGED_PER_SERVER);
    expect(held.length).toBe(PIN_HELD_LOGGED_PER_SERVER);
    // The rest are counted, not lost: the last entry logged says how many were left out.
    const counted = held.reduce((sum, entry) => sum + (entry.notLogged ?? 0), 0);
    expect(held.at(-1)?.notLogged).toBe(counted);
    // The first flooded listing's overflow is counted on its last entry; the later listings',
    // over the limit as a whole, are counted on the server's first entry of the next window.
    expect(counted).toBe(TOOLS_PER_LISTING + 1 - PIN_HELD_LOGGED_PER_SERVER);
  });
});
