// Mistakes a user makes naming a server, in Chromium against `codemode daemon --ui`:
// - a name already in use, through the blank form and through the gallery: the saved server
//   must stay as it was and the Name field must say why nothing was added. Before, both forms
//   replaced the saved server of that name without a word.
// - a name with a space, in the gallery: said on the Name field (before, above the form).
// - a very long name: refused on the Name field. Before, a name of 65 to 200 characters was
//   saved, and that server could then not be edited, restarted or removed (the API takes at
//   most API_LIMITS.serverNameMaxChars to reach a server). A name of that length fits the
//   Remove dialog (before, it ran past the dialog's edge).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_LIMITS } from "../shared/limits.js";
import { TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { descriptionOf, waitUntil } from "../test-support/browser.js";
import { toyServer, writeServers } from "../test-support/daemon.js";
import { useUiPage } from "../test-support/ui-page.js";

const TAKEN = /A server with this name already exists: choose another name, or edit that one\./;
const TOO_LONG = /Use a shorter name: at most \d+ characters/;

describe("server names the add forms refuse (browser UI)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-name-taken-",
    prepare: (home) => writeServers(home, { toy: toyServer() }),
  });

  const savedServers = (): Record<string, unknown> =>
    (
      JSON.parse(readFileSync(path.join(ui.home, "servers.json"), "utf8")) as {
        mcpServers: Record<string, unknown>;
      }
    ).mcpServers;

  it("the blank form refuses the name on its Name field and keeps the saved server", async () => {
    const { page } = ui;
    await page.waitForURL((url) => url.hash.startsWith("#/servers"));
    await page.getByText(TOY_SERVER_JS).first().waitFor();
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Blank form" }).click();
    const dialog = page.getByRole("dialog", { name: "Add server" });
    await dialog.getByLabel("Name").fill("toy");
    await dialog.getByLabel("Command").fill("npx");
    await dialog.getByLabel("Arguments").fill("-y\n@modelcontextprotocol/server-memory");
    await dialog.getByRole("button", { name: "Save" }).click();

    const name = dialog.getByLabel("Name");
    await waitUntil(
      () => descriptionOf(name),
      (text) => TAKEN.test(text),
      "the Name field to say the name is taken",
    );
    expect(await dialog.isVisible()).toBe(true);
    expect(savedServers()).toEqual({ toy: toyServer() });

    // Another name adds it, beside the first.
    await name.fill("notes");
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.waitForURL((url) => url.hash.includes("name=notes"));
    expect(Object.keys(savedServers())).toEqual(["toy", "notes"]);
    expect(savedServers().toy).toMatchObject(toyServer());
  });

  it("the gallery refuses the name on its Name field and keeps the saved server", async () => {
    const { page } = ui;
    await page.goto(`${ui.daemon.origin}/#/servers`);
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Everything (test server)", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Add Everything (test server)" });
    const name = dialog.getByLabel("Name");
    await name.fill("toy");
    await dialog.getByRole("button", { name: "Add server" }).click();

    await waitUntil(
      () => descriptionOf(name),
      (text) => TAKEN.test(text),
      "the Name field to say the name is taken",
    );
    expect(await dialog.isVisible()).toBe(true);
    expect(savedServers().toy).toMatchObject(toyServer());
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("the gallery puts a name with a space on its Name field, not above the form", async () => {
    const { page } = ui;
    await page.goto(`${ui.daemon.origin}/#/servers`);
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Everything (test server)", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Add Everything (test server)" });
    const name = dialog.getByLabel("Name");
    await name.fill("my server");
    await dialog.getByRole("button", { name: "Add server" }).click();
    await waitUntil(
      () => descriptionOf(name),
      (text) => /may only hold ASCII letters, digits, "_" and "-"/.test(text),
      "the Name field to say which characters a name takes",
    );
    expect(Object.keys(savedServers())).not.toContain("my server");
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("the blank form refuses a name too long to reach the server again", async () => {
    const { page } = ui;
    await page.goto(`${ui.daemon.origin}/#/servers`);
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Blank form" }).click();
    const dialog = page.getByRole("dialog", { name: "Add server" });
    const long = "b".repeat(API_LIMITS.serverNameMaxChars + 36);
    const name = dialog.getByLabel("Name");
    await name.fill(long);
    await dialog.getByLabel("Command").fill(process.execPath);
    await dialog.getByLabel("Arguments").fill(TOY_SERVER_JS);
    await dialog.getByRole("button", { name: "Save" }).click();
    await waitUntil(
      () => descriptionOf(name),
      (text) => TOO_LONG.test(text),
      "the Name field to say the name is too long",
    );
    expect(await dialog.isVisible()).toBe(true);
    expect(Object.keys(savedServers())).not.toContain(long);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("the longest name a server may have fits its Remove dialog", async () => {
    const { page } = ui;
    await page.goto(`${ui.daemon.origin}/#/servers`);
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Blank form" }).click();
    const dialog = page.getByRole("dialog", { name: "Add server" });
    const longest = "c".repeat(API_LIMITS.serverNameMaxChars);
    await dialog.getByLabel("Name").fill(longest);
    await dialog.getByLabel("Command").fill(process.execPath);
    await dialog.getByLabel("Arguments").fill(TOY_SERVER_JS);
    await dialog.getByRole("button", { name: "Save" }).click();
    await page.waitForURL((url) => url.hash.includes(`name=${longest}`));
    await page.getByRole("button", { name: "Remove" }).click();
    const remove = page.getByRole("dialog", { name: `Remove ${longest}?` });
    type Boxed = { getBoundingClientRect(): { right: number } };
    const dialogRight = await remove.evaluate((el) => (el as Boxed).getBoundingClientRect().right);
    const nameRight = await remove
      .locator("strong", { hasText: longest })
      .evaluate((el) => (el as Boxed).getBoundingClientRect().right);
    expect(nameRight, "the name's right edge, past the dialog's").toBeLessThanOrEqual(dialogRight);
    await remove.getByRole("button", { name: "Cancel" }).click();
  });
});
