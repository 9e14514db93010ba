// What a user sees of a server's start after saving it through the Servers page's blank form,
// in Chromium against `codemode daemon --ui`: Save no longer waits for the start, so the page
// has to say what the server is doing.
// - A server slow to start: the dialog closes at once, its page says Starting and that the
//   tools come once it has started (a first start may download it: before, the page said
//   nothing of why it could stay Starting for a minute), then Ready with its tools, with no
//   reload (events).
// - A server that fails: Failed on its page and in the list, its error once and the lines it
//   printed below it. Before, the error ran the server's stderr lines into its sentence
//   ("... Connection closed Last lines of stderr: toy server: ...") right above the block
//   that shows the same lines, so the user read them twice, after the SDK's "MCP error -32000:
//   Connection closed" where it now says the server stopped before answering. Its Tools card
//   says to fix the problem and Restart (before, "Tools appear here once the server has
//   started", as if it were still starting).
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { STOPPED_BEFORE_ANSWERING } from "../electron/host/servers/wrapped-server-types.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { waitForText } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

/** Long enough to watch the page while it starts, short enough for the test. */
const START_DELAY_MS = 6_000;
const FAIL_LINE = "toy server: TOY_FAIL_START=1, giving up before connecting";
const FAILED = `Server "broken" failed to start: ${STOPPED_BEFORE_ANSWERING}`;

/** Adds the toy server under `name` through the blank form with one environment variable. */
async function addThroughForm(page: Page, name: string, env: [string, string]): Promise<number> {
  await page.getByRole("button", { name: "Add server" }).first().click();
  await page.getByRole("button", { name: "Blank form" }).click();
  const dialog = page.getByRole("dialog", { name: "Add server" });
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByLabel("Command").fill(process.execPath);
  await dialog.getByLabel("Arguments").fill(TOY_SERVER_JS);
  await dialog.getByRole("button", { name: "Add variable" }).click();
  await dialog.getByLabel("Variable 1").fill(env[0]);
  await dialog.getByLabel("Value 1").fill(env[1]);
  const savedAt = Date.now();
  await dialog.getByRole("button", { name: "Save" }).click();
  await dialog.waitFor({ state: "hidden" });
  await page.waitForURL((url) => url.hash.includes(`name=${name}`));
  return Date.now() - savedAt;
}

const titleOf = (page: Page): Locator => page.locator(".title-with-badge");
const toolsCard = (page: Page): Locator =>
  page.locator("section", { has: page.getByRole("heading", { name: "Tools" }) });

describe("a server's start after Save (browser UI)", () => {
  const ui = useUiPage({ homePrefix: "codemode-start-states-" });

  it("a slow server shows Starting on its page, then Ready with its tools", async () => {
    const { page } = ui;
    await page.waitForURL((url) => url.hash.startsWith("#/servers"));
    const took = await addThroughForm(page, "slow", ["TOY_START_DELAY_MS", String(START_DELAY_MS)]);
    expect(took, "Save to close the dialog, in ms").toBeLessThan(START_DELAY_MS / 2);

    expect(await titleOf(page).innerText()).toMatch(/Starting/);
    await waitForText(
      toolsCard(page),
      /Tools appear here once the server has started\. A first start may download it, which can take a minute\./,
    );
    await waitForText(titleOf(page), /Ready/, "the page to say Ready", START_DELAY_MS + 15_000);
    await waitForText(toolsCard(page), /slow__add/, "the tools without a reload");
  });

  it("a server that fails shows its error once and the lines it printed below", async () => {
    const { page } = ui;
    await page.goto(`${ui.daemon.origin}/#/servers`);
    await addThroughForm(page, "broken", ["TOY_FAIL_START", "1"]);
    await waitForText(titleOf(page), /Failed/, "the page to say Failed");

    const callout = page.locator(".callout-bad", { hasText: "This server did not start." });
    expect(await callout.locator("p").first().innerText()).toBe(FAILED);
    expect(await callout.getByLabel("Server output").innerText()).toBe(FAIL_LINE);
    await waitForText(toolsCard(page), /Fix the problem above, then choose Restart\./);

    await page.goto(`${ui.daemon.origin}/#/servers`);
    const row = page
      .getByRole("listitem")
      .filter({ has: page.getByRole("link", { name: "broken" }) });
    await waitForText(row, /Failed/, "the list to say Failed");
    expect(await row.locator(".server-failure p").innerText()).toBe(FAILED);
    expect(await row.getByLabel("Output of broken").innerText()).toBe(FAIL_LINE);
  });
});
