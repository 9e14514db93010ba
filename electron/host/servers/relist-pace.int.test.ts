// A server cannot keep the host busy re-listing its tools: it answers every tools/list and at
// once sends notifications/tools/list_changed again. Each listing costs the host a parse, the
// pins, a pin file save and a catalog rebuild: 188 listings a second of 100 tools took ~76% of
// the host's one thread, for as long as the server went on. Now re-listings of one server are
// paced (RELIST_MIN_INTERVAL_MS apart at least, more after a slow one); a change is
// still taken, the burst collapsing into the next listing. A real stdio server and a real host.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../api/api-dispatcher.js";
import { CodeModeHost } from "../app/code-mode-host.js";
import { listFloodServer } from "../../../test-support/list-flood-server.js";
import { until } from "../../../test-support/wait.js";
import { startHostWithoutDocker } from "../../../test-support/daemon.js";
import { RELIST_MIN_INTERVAL_MS } from "./server-connection.js";

describe("a server sending list_changed after every listing", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-relist-"));
  const script = path.join(home, "flood-server.cjs");
  const countFile = path.join(home, "listings");
  let host: CodeModeHost;
  const listings = (): number => readFileSync(countFile, "utf8").length;

  beforeAll(async () => {
    writeFileSync(countFile, "");
    writeFileSync(script, listFloodServer({ listings: 1e9, perListing: 100, countFile }));
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

  it("is re-listed at a bounded pace, and each re-listing still takes the server's new tools", async () => {
    await until(() => listings() >= 3, "the server re-listed", 20_000);
    const heldBefore = host.serverViews().find((s) => s.name === "flood")?.held;
    const seconds = 3;
    const from = listings();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const done = listings() - from;
    // At most one re-listing per interval (and one already waiting when the count began).
    expect(done).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / RELIST_MIN_INTERVAL_MS) + 1);
    expect(done).toBeGreaterThan(0);
    // The listings are taken: the held definitions are the latest listing's (100 new, the seed).
    expect(heldBefore).toBe(101);
    expect(host.serverViews().find((s) => s.name === "flood")?.held).toBe(101);
  });
});
