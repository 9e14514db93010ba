// Paste JSON with a client's whole config file, as a user copies it out of Claude Desktop's
// claude_desktop_config.json (which holds more than mcpServers): the preview lists its
// servers and adding them saves them. Before, the preview refused the paste for its other
// keys ("unknown top-level key"), an error that did not say what to do.
// And the JSON the Clients page hands out (Code Mode's own shim entry), pasted here by
// mistake: shown as Code Mode itself and not added, as the Claude Desktop import does. Before,
// Paste JSON added it, and Code Mode wrapped itself.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { waitForTexts } from "../test-support/browser.js";
import { useUiPage } from "../test-support/ui-page.js";

/** A Claude Desktop config as the app writes it: settings of its own beside mcpServers. */
const CLAUDE_DESKTOP_CONFIG = {
  globalShortcut: "Alt+Space",
  preferences: { menuBarEnabled: false },
  mcpServers: {
    memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] },
    everything: { command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] },
  },
};

describe("pasting a client's whole config (browser UI)", () => {
  const ui = useUiPage({ homePrefix: "codemode-paste-config-" });
  /** servers.json as saved, or null before the first save. */
  const savedText = (): string | null => {
    const file = path.join(ui.home, "servers.json");
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  };

  it("previews the servers of a whole Claude Desktop config and adds them", async () => {
    const { page } = ui;
    await page.waitForURL((url) => url.hash.startsWith("#/servers"));
    await page.getByRole("button", { name: "Paste JSON" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Paste JSON" });
    await dialog.getByLabel("Snippet").fill(JSON.stringify(CLAUDE_DESKTOP_CONFIG, null, 2));
    await dialog.getByRole("button", { name: "Preview" }).click();

    const found = dialog.getByRole("list", { name: "Servers found" }).getByRole("listitem");
    const texts = await waitForTexts(
      found,
      (t) => t.length === 2,
      "the preview to list the two servers",
    );
    expect(texts[0]).toContain("memory");
    expect(texts[1]).toContain("everything");

    await dialog.getByRole("button", { name: "Add these servers" }).click();
    await dialog.waitFor({ state: "hidden" });
    const saved = JSON.parse(readFileSync(path.join(ui.home, "servers.json"), "utf8")) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    expect(Object.keys(saved.mcpServers)).toEqual(["memory", "everything"]);
    expect(saved.mcpServers.memory).toMatchObject(CLAUDE_DESKTOP_CONFIG.mcpServers.memory);
  });

  it("shows the Clients page's own entry as Code Mode itself and does not add it", async () => {
    const { page } = ui;
    await ui.nav("Clients").click();
    const snippet = await page
      .getByRole("region", { name: "Other clients" })
      .getByLabel("Claude Desktop config", { exact: true })
      .innerText();
    expect(snippet).toContain("shim");
    await ui.nav("Servers").click();
    const before = savedText();
    await page.getByRole("button", { name: "Paste JSON" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Paste JSON" });
    await dialog.getByLabel("Snippet").fill(snippet);
    await dialog.getByRole("button", { name: "Preview" }).click();
    const found = dialog.getByRole("list", { name: "Servers found" }).getByRole("listitem");
    await waitForTexts(
      found,
      (t) => t.length === 1 && t[0]!.includes("This is Code Mode itself"),
      "the preview to show the entry as Code Mode itself",
    );
    expect(await found.getByRole("checkbox").isChecked()).toBe(false);
    expect(await dialog.getByRole("button", { name: "Add these servers" }).isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Close" }).click();
    expect(savedText()).toBe(before);
  });
});
