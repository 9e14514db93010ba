// Issue 14 §1 in the browser: a Servers page with more servers than one page of servers.list
// holds. `codemode daemon --ui` as a real process, Debian's Chromium. The page draws the first
// page with "Showing 100 of 250 servers" and a Show more button that adds the next page; a
// link to a server past the pages shown still opens it; the sidebar counts every failed one.
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_LIMITS } from "../shared/limits.js";
import { assertHostBuilt, cleanUpHosts, makeHome, writeServers } from "../test-support/daemon.js";
import {
  assertUiBuilt,
  launchChromium,
  startUiDaemon,
  UI_TIMEOUT_MS,
  type UiDaemon,
} from "../test-support/browser.js";

const PAGE = API_LIMITS.serversPageMaxLimit;
const MANY = PAGE * 2 + 50;

describe("a long server list (browser UI)", () => {
  const home = makeHome("codemode-ui-long-");
  let daemon: UiDaemon;
  let browser: Browser;
  let page: Page;

  const rows = () => page.getByRole("list", { name: "Servers" }).getByRole("listitem");

  beforeAll(async () => {
    assertHostBuilt();
    assertUiBuilt();
    // A command that is not there: each server fails at once, without starting a process.
    writeServers(
      home,
      Object.fromEntries(
        Array.from({ length: MANY }, (_, i) => [
          `srv${String(i).padStart(3, "0")}`,
          { command: path.join(home, "no-such-server"), args: [] },
        ]),
      ),
    );
    daemon = await startUiDaemon(home);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(daemon.url);
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts();
    }
  });

  it("shows the first page, and Show more adds the next one", async () => {
    await page.goto(`${daemon.origin}/#/servers`);
    await page.getByText(`Showing ${PAGE} of ${MANY} servers`).waitFor();
    expect(await rows().count()).toBe(PAGE);
    await page.getByRole("button", { name: "Show more" }).click();
    await page.getByText(`Showing ${PAGE * 2} of ${MANY} servers`).waitFor();
    expect(await rows().count()).toBe(PAGE * 2);
    expect(await rows().last().innerText()).toContain(`srv${PAGE * 2 - 1}`);
  });

  it("opens a server past the pages shown, and counts every failed server", async () => {
    const last = `srv${MANY - 1}`;
    await page.goto(`${daemon.origin}/#/servers?name=${last}`);
    await page.getByRole("heading", { name: last }).waitFor();
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByText(String(MANY), { exact: true }).waitFor();
  });
});
