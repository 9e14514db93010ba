// Exporting a huge audit log must not take the daemon down. Before, the Audit
// page's Export asked for the whole log in one WebSocket reply: 200,000 entries peaked the
// daemon at 551 MiB and 1,000,000 killed it (`RangeError: Invalid string length`). Now the
// log streams to the browser as a download: a real `codemode daemon --ui` over a log written
// through the real writer, its resident memory sampled while the whole log is downloaded.
// (The 1,000,000-entry figure: `npx tsx bench/audit-export-memory.ts`.)
import { statSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  askExportLink,
  downloadSampling,
  fillAuditLog,
  rssBytes,
  settledRss,
} from "../test-support/audit-export-download.js";
import { startUiDaemon, type UiDaemon } from "../test-support/browser.js";
import { assertHostBuilt, cleanUpHosts, makeHome } from "../test-support/daemon.js";

/** A ~45 MiB log: held in memory as one reply it costs ~220 MiB (the bench), far over the bound. */
const ENTRIES = 100_000;
/** The bound: host memory while exporting stays within this of idle. */
const MEMORY_BOUND_BYTES = 50 * 1024 * 1024;

describe("exporting a big audit log (browser mode)", () => {
  const home = makeHome("codemode-export-mem-");
  let daemon: UiDaemon;

  beforeAll(async () => {
    assertHostBuilt();
    await fillAuditLog(home, ENTRIES);
    daemon = await startUiDaemon(home);
  }, 120_000);

  afterAll(async () => {
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts();
    }
  });

  it("streams every line while the daemon's memory stays within 50 MB of idle", async () => {
    const dir = path.join(home, "audit");
    const logBytes = readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .reduce((sum, name) => sum + statSync(path.join(dir, name)).size, 0);
    // Idle: once start-up's own reading of the log has settled (its memory stopped growing).
    const idle = await settledRss(daemon.pid);
    const url = await askExportLink(daemon.port, await daemon.ticket(), { format: "jsonl" });
    const got = await downloadSampling(daemon.port, url, daemon.pid);
    expect(got.status).toBe(200);
    expect(got.lines).toBeGreaterThanOrEqual(ENTRIES);
    expect(got.bytes).toBe(logBytes);
    expect(got.peakRss - idle).toBeLessThan(MEMORY_BOUND_BYTES);
    // The daemon is still there and answering.
    expect(rssBytes(daemon.pid)).toBeGreaterThan(0);
  }, 120_000);
});
