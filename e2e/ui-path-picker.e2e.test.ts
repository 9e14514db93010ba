// The desktop app's "Choose folder…" button, as far as a browser can check it: the page shows
// it only when the preload's picker (`window.codemodeDesktop`) is there, and a chosen folder
// lands in the field (a second one on its own line). The picker here is a stand-in put in
// the page before it loads; the Electron side (the IPC handler and the OS dialog) is tested
// against stand-ins in electron/ipc/register-path-picker-ipc.test.ts, since Electron cannot
// start on our CI machines.
import { describe, expect, it } from "vitest";
import { UI_TIMEOUT_MS } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

describe("folder picker buttons (browser UI with a stand-in desktop picker)", () => {
  // The picker test opens a page of its own, with the stand-in picker put in before it loads.
  const ui = useUiPage({ homePrefix: "codemode-picker-", open: false });

  async function filesystemDialog(withPicker: boolean) {
    let page = ui.page;
    if (withPicker) {
      const context = await ui.browser.newContext({ viewport: { width: 1280, height: 860 } });
      await context.addInitScript(() => {
        let n = 0;
        (globalThis as unknown as { codemodeDesktop: unknown }).codemodeDesktop = {
          pickPath: (params: { kind: string }) =>
            Promise.resolve(params.kind === "folder" ? `/picked/folder-${++n}` : null),
        };
      });
      page = await context.newPage();
      page.setDefaultTimeout(UI_TIMEOUT_MS);
    }
    await page.goto(await ui.daemon.newLink());
    await page.waitForURL((url) => url.hash.startsWith("#/servers"));
    await page.getByRole("button", { name: "Add server" }).click();
    await page.getByRole("button", { name: "Filesystem", exact: true }).click();
    return page.getByRole("dialog", { name: "Add Filesystem" });
  }

  it("puts the folders chosen in the desktop picker into the field, one per line", async () => {
    const dialog = await filesystemDialog(true);
    const choose = dialog.getByRole("button", { name: "Choose Folders it may use" });
    await choose.click();
    const field = dialog.getByLabel("Folders it may use", { exact: true });
    await expect.poll(() => field.inputValue()).toBe("/picked/folder-1");
    await choose.click();
    await expect.poll(() => field.inputValue()).toBe("/picked/folder-1\n/picked/folder-2");
  });

  it("shows no picker button in a plain browser, where the field stays text", async () => {
    const dialog = await filesystemDialog(false);
    await dialog.getByLabel("Folders it may use", { exact: true }).waitFor();
    expect(await dialog.getByRole("button", { name: "Choose Folders it may use" }).count()).toBe(0);
  });
});
