// The Clients page's HTTP entries, clicked as a user would: `codemode daemon --ui` as a real
// process, Debian's Chromium. With MCP over HTTP off there are none; turned on in Sandbox →
// Advanced they appear for Claude Code, Cursor, VS Code and Gemini CLI, as the host writes
// them, with the token one click away; turned off again they go. The Claude Code entry is
// run with the real `claude` CLI by real-clients.e2e.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { cliShimLaunch } from "../electron/host/cli/commands/daemon-command.js";
import { httpClientSnippets } from "../electron/host/api/clients/client-snippets.js";
import { GEMINI_TRUST_NOTE } from "../shared/client-notes.js";
import { waitForText } from "../test-support/browser.js";
import { freePort } from "../test-support/free-port.js";
import { useUiPage } from "../test-support/ui-page.js";

/** The browser global the copy check reads (the tsconfig has no DOM lib). */
interface ClipboardGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
}

describe("the Clients page's HTTP entries (browser UI)", () => {
  let url: string;
  let token: string;
  const ui = useUiPage({
    homePrefix: "codemode-ui-http-",
    permissions: ["clipboard-read", "clipboard-write"],
    prepare: async (home) => {
      const port = await freePort();
      url = `http://127.0.0.1:${port}/mcp`;
      writeFileSync(
        path.join(home, "settings.json"),
        JSON.stringify({ httpEnabled: false, httpPort: port }),
      );
    },
  });
  const snippetsCard = (): Locator => ui.page.getByRole("region", { name: "Other clients" });
  const httpGroup = (): Locator => ui.page.getByRole("group", { name: "Over HTTP" });

  /** Sandbox → Advanced → Local HTTP connection, saved. */
  const setHttp = async (on: boolean): Promise<void> => {
    await ui.nav("Sandbox").click();
    const advanced = ui.page.locator("details.disclosure", { hasText: "Advanced" });
    if (!(await advanced.evaluate((d) => (d as { open: boolean }).open))) {
      await advanced.locator("summary").click();
    }
    const toggle = ui.page.getByRole("switch", { name: "Local HTTP connection" });
    if ((await toggle.isChecked()) !== on) await toggle.click();
    await ui.page.getByRole("button", { name: "Save limits" }).click();
    await ui.page.getByText("Saved. New runs use these limits.").waitFor();
    await ui.nav("Clients").click();
  };

  beforeAll(async () => {
    token = readFileSync(path.join(ui.home, "token"), "utf8").trim();
    await ui.nav("Clients").click();
  });

  it("tells, with the Gemini CLI command, that Gemini CLI needs the folder trusted", async () => {
    const shim = snippetsCard().getByRole("tablist", { name: "Client" });
    await shim.getByRole("tab", { name: "Gemini CLI" }).click();
    const panel = snippetsCard().getByRole("tabpanel", { name: "Gemini CLI" }).first();
    await waitForText(panel, /gemini mcp add/, "the Gemini CLI command");
    expect(await panel.innerText()).toContain(GEMINI_TRUST_NOTE);
  });

  it("offers no HTTP entry while MCP over HTTP is off, and says where to turn it on", async () => {
    await waitForText(snippetsCard(), /Sandbox → Advanced/, "the note that HTTP is off");
    expect(await httpGroup().count()).toBe(0);
    expect(await ui.page.getByRole("tablist", { name: "HTTP client" }).count()).toBe(0);
    expect(await snippetsCard().innerText()).not.toContain(token);
  });

  it("turned on, gives the entries the host writes for Claude Code, Cursor, VS Code and Gemini CLI", async () => {
    await setHttp(true);
    const group = httpGroup();
    await group.waitFor();
    const expected = httpClientSnippets({ url, token }, cliShimLaunch({ CODEMODE_HOME: ui.home }));
    const tabs = group.getByRole("tablist", { name: "HTTP client" }).getByRole("tab");
    expect(await tabs.allInnerTexts()).toEqual(["Claude Code", "Cursor", "VS Code", "Gemini CLI"]);
    const shown = async (title: string): Promise<string> => {
      await group.getByRole("tab", { name: title }).click();
      return group.getByLabel(`${title} HTTP entry`, { exact: true }).innerText();
    };
    expect(await shown("Claude Code")).toBe(expected.claudeCode);
    // The command a user runs carries no token: Claude Code reads it when it connects.
    expect(expected.claudeCode).not.toContain(token);
    expect(JSON.parse(await shown("Cursor"))).toEqual(JSON.parse(expected.cursor));
    expect(JSON.parse(await shown("VS Code"))).toEqual(JSON.parse(expected.vscode));
    expect(JSON.parse(await shown("Gemini CLI"))).toEqual({
      mcpServers: { codemode: { httpUrl: url, headers: { Authorization: `Bearer ${token}` } } },
    });
    // Pasting the entry is not enough for Gemini CLI: the folder must be trusted too.
    const geminiPanel = group.getByRole("tabpanel", { name: "Gemini CLI" });
    expect(await geminiPanel.innerText()).toContain(GEMINI_TRUST_NOTE);
    // One tab's entry at a time.
    expect(await group.getByLabel("Cursor HTTP entry", { exact: true }).isVisible()).toBe(false);
    await waitForText(group, new RegExp(url.replace(/[.]/g, "\\.")), "the HTTP address");
  });

  it("copies the token with one click", async () => {
    await httpGroup().getByRole("button", { name: "Copy token" }).click();
    await waitForText(httpGroup(), /Copied/, "the copy feedback");
    const copied = await ui.page.evaluate(() =>
      (globalThis as unknown as ClipboardGlobals).navigator.clipboard.readText(),
    );
    expect(copied).toBe(token);
  });

  it("turned off again, the HTTP entries go", async () => {
    await setHttp(false);
    await waitForText(snippetsCard(), /Sandbox → Advanced/, "the note that HTTP is off");
    expect(await httpGroup().count()).toBe(0);
    expect(await snippetsCard().innerText()).not.toContain(token);
  });
});
