// The Audit page shows how far verify has read a big log. A log written by the
// real AuditLog (syncing off) over several files, `codemode daemon --ui` with no Docker engine
// (none is needed), Chromium opening the Audit page (which verifies on arrival): a bar with a
// percentage shows while the host reads, then the verdict replaces it. Every state the bar
// passes through is recorded in the page as it changes, so a fast read cannot slip between
// two polls.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_FILE } from "../electron/host/audit/audit-checkpoint.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { mixedInput } from "../test-support/audit-fixtures.js";
import { waitForText } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

/** Several of verify's read chunks (AUDIT_VERIFY_READ_CHUNK_BYTES) over several files. */
const ENTRIES = 20_000;
const FILE_BYTES = 2 * 1024 * 1024;

/** Runs in the page: records each new text of the verify bar on `window.e2eVerifyBar`. */
const RECORD_BAR = `(() => {
  const seen = [];
  window.e2eVerifyBar = seen;
  const look = () => {
    const bar = document.querySelector('[role="progressbar"][aria-label="Verify progress"]');
    if (bar === null) return;
    const text = bar.closest(".verify-progress").textContent + " | " + bar.getAttribute("aria-valuenow");
    if (seen.at(-1) !== text) seen.push(text);
  };
  new MutationObserver(look).observe(document.body, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
})()`;

describe("the verify progress bar (browser UI)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-verify-",
    prepare: async (home) => {
      const log = await AuditLog.open({
        dir: path.join(home, "audit"),
        fsync: false,
        maxFileBytes: FILE_BYTES,
        checkpoint: { file: path.join(home, CHECKPOINT_FILE) },
      });
      for (let i = 0; i < ENTRIES; i += 2000) {
        await Promise.all(Array.from({ length: 2000 }, (_, j) => log.append(mixedInput(i + j))));
      }
      await log.close();
    },
    env: { DOCKER_HOST: "unix:///nonexistent/no-docker.sock" },
  });

  it("shows a bar with a percentage while verifying, then the verdict", async () => {
    await ui.page.getByRole("navigation", { name: "Main" }).waitFor();
    await ui.page.evaluate(RECORD_BAR);
    await ui.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Audit log" })
      .click();
    const status = ui.page.getByRole("status", { name: "Chain verification" });
    // The daemon's start adds a few entries of its own on top of the prefilled ones.
    await waitForText(
      status,
      /Chain verified at [\d:]+(?: [AP]M)?: [\d,]+ entries/,
      "the verdict",
      60_000,
    );
    const verified = Number(
      /Chain verified at [\d:]+(?: [AP]M)?: ([\d,]+)/
        .exec(await status.innerText())![1]!
        .replace(/,/g, ""),
    );
    expect(verified).toBeGreaterThanOrEqual(ENTRIES);
    await expect(status.getByRole("progressbar").count()).resolves.toBe(0);

    const seen = await ui.page.evaluate(
      () => (globalThis as unknown as { e2eVerifyBar: string[] }).e2eVerifyBar,
    );
    expect(seen.length, "the bar was shown").toBeGreaterThan(0);
    for (const text of seen) {
      // "Verifying the chain… 12,345 entries checked · 37% | 37": the visible percentage is
      // the bar's value.
      const match = /entries checked · (\d+)% \| (\d+)$/.exec(text);
      expect(match, text).not.toBeNull();
      expect(match![1]).toBe(match![2]);
    }
    // The bar shows a reading part of the way, not only its end.
    const percents = seen.map((text) => Number(text.slice(text.lastIndexOf("| ") + 2)));
    expect(Math.min(...percents)).toBeLessThan(100);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
  }, 90_000);
});
