// Paste JSON with a client's whole config file, as a user copies it out of Claude Desktop's
// claude_desktop_config.json (which holds more than mcpServers): the preview lists its
// servers and adding them saves them. Before, the preview refused the paste for its other
// keys ("unknown top-level key"), an error that did not say what to do.
import { readFileSync } from "node:fs";
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
});
