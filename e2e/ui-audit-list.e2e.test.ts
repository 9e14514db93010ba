// The audit list's own mechanics, in Chromium against `codemode daemon --ui`: pages loaded as
// the list scrolls, the keyboard moving the selection, the live tail held while paused and
// shown on resume, chain verification and export. The log is filled before the daemon
// starts (no Docker needed); a live entry comes from a refused browser connection.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import WebSocket from "ws";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECKPOINT_FILE } from "../electron/host/audit/audit-checkpoint.js";
import { AuditLog } from "../electron/host/audit/audit-log.js";
import { callInput } from "../test-support/audit-fixtures.js";
import { waitForText, waitUntil } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

/** More than the list's first page (200) and a next page (500): paging has work to do. */
const PREFILLED = 750;

describe("the audit list (browser UI)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-audit-",
    context: { acceptDownloads: true },
    prepare: async (home) => {
      const log = await AuditLog.open({
        dir: path.join(home, "audit"),
        fsync: false,
        checkpoint: { file: path.join(home, CHECKPOINT_FILE) },
      });
      for (let i = 0; i < PREFILLED; i += 1) await log.append(callInput(i));
      await log.close();
    },
  });

  const list = (): Locator => ui.page.getByRole("listbox", { name: "Audit entries" });
  const selected = (): Locator => list().locator('[role="option"][aria-selected="true"]');
  const footer = (): Locator => ui.page.locator(".audit-list-footer");
  const loadedCount = async (): Promise<number> =>
    Number(/^([\d,]+) entr/.exec(await footer().innerText())?.[1]?.replace(/,/g, "") ?? "0");

  beforeAll(async () => {
    await ui.nav("Audit log").click();
    await list().waitFor();
  });

  it("loads the first page, then older pages as the selection nears the end", async () => {
    await waitForText(footer(), /entries loaded — scroll for older/, "the first page");
    const first = await loadedCount();
    expect(first).toBeGreaterThanOrEqual(200);
    expect(first).toBeLessThan(PREFILLED);
    await list().focus();
    // End selects the last loaded entry; the list asks for older ones as it gets there.
    await waitUntil(
      async () => {
        await ui.page.keyboard.press("End");
        return footer().innerText();
      },
      (text) => text.includes("— all loaded"),
      "every page loaded",
    );
    expect(await loadedCount()).toBeGreaterThanOrEqual(PREFILLED);
    // The oldest entry, seq 1, is the last row.
    await ui.page.keyboard.press("End");
    await waitUntil(
      () => selected().getAttribute("id"),
      (id) => id === "audit-row-1",
      "the oldest entry selected",
    );
  });

  it("moves the selection with the keyboard and clears it with Escape", async () => {
    await ui.page.keyboard.press("Home");
    const top = await waitUntil(
      () => selected().getAttribute("aria-posinset"),
      (pos) => pos === "1",
      "the newest entry selected",
    );
    expect(top).toBe("1");
    await ui.page.keyboard.press("ArrowDown");
    await waitUntil(
      () => selected().getAttribute("aria-posinset"),
      (pos) => pos === "2",
      "the second entry selected",
    );
    const seq = (await selected().getAttribute("id"))!.replace("audit-row-", "");
    expect(new URL(ui.page.url()).hash).toContain(`seq=${seq}`);
    await ui.page.keyboard.press("Escape");
    await waitUntil(
      () => selected().count(),
      (n) => n === 0,
      "no entry selected",
    );
    expect(await list().getAttribute("aria-activedescendant")).toBeNull();
  });

  it("holds live entries while paused and shows them on resume", async () => {
    await ui.page.getByRole("button", { name: "Pause live" }).click();
    const before = await loadedCount();
    // A browser connection from another origin is refused and logged: one live entry.
    await new Promise<void>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${ui.daemon.port}/api`, {
        origin: "http://evil.example",
      });
      ws.on("error", () => resolve());
      ws.on("close", () => resolve());
    });
    await waitForText(ui.page.locator(".live-control"), /Paused · 1 new/, "one entry held");
    expect(await loadedCount()).toBe(before);
    await ui.page.getByRole("button", { name: "Resume live" }).click();
    await waitForText(ui.page.locator(".live-control"), /^Live/, "live again");
    await waitUntil(loadedCount, (n) => n === before + 1, "the held entry in the list");
    await waitForText(
      list().getByRole("option").first(),
      /browser connection from another host or origin/,
      "the refusal on top",
    );
  });

  it("verifies the chain and exports the entries as JSONL", async () => {
    await waitForText(
      ui.page.getByRole("status", { name: "Chain verification" }),
      /Chain verified at [\d:]+(?: [AP]M)?: [\d,]+ entries/,
      "the chain verified",
    );
    const download = ui.page.waitForEvent("download");
    await ui.page.getByRole("button", { name: "Export" }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines.length).toBe(await loadedCount());
    // Oldest first.
    expect((JSON.parse(lines[0]!) as { seq: number }).seq).toBe(1);
  });
});
