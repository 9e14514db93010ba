// The Clients page's HTTP entries, clicked as a user would: `codemode daemon --ui` as a real
// process, Debian's Chromium. With MCP over HTTP off there are none; turned on in Sandbox →
// Advanced they appear for Claude Code, Cursor, VS Code and Gemini CLI, as the host writes
// them, with the token one click away; turned off again they go. The Claude Code entry is
// run with the real `claude` CLI by real-clients.e2e.test.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClientSnippets } from "../electron/host/clients/client-snippets.js";
import { GEMINI_TRUST_NOTE } from "../shared/client-notes.js";
import { assertHostBuilt, cleanUpHosts, makeHome } from "../test-support/daemon.js";
import {
  assertUiBuilt,
  launchChromium,
  startUiDaemon,
  UI_TIMEOUT_MS,
  waitForText,
  type UiDaemon,
} from "../test-support/browser.js";
import { freePort } from "../test-support/free-port.js";

/** The browser global the copy check reads (the tsconfig has no DOM lib). */
interface ClipboardGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
}

describe("the Clients page's HTTP entries (browser UI)", () => {
  const home = makeHome("codemode-ui-http-");
  let daemon: UiDaemon;
  let browser: Browser;
  let page: Page;
  let url: string;
  let token: string;

  const nav = (label: string): Locator =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label });
  const snippetsCard = (): Locator => page.getByRole("region", { name: "Other clients" });
  const httpGroup = (): Locator => page.getByRole("group", { name: "Over HTTP" });

  /** Sandbox → Advanced → Local HTTP transport, saved. */
  const setHttp = async (on: boolean): Promise<void> => {
    await nav("Sandbox").click();
    const advanced = page.locator("details.disclosure", { hasText: "Advanced" });
    if (!(await advanced.evaluate((d) => (d as { open: boolean }).open))) {
      await advanced.locator("summary").click();
    }
    const toggle = page.getByRole("switch", { name: "Local HTTP transport" });
    if ((await toggle.isChecked()) !== on) await toggle.click();
    await page.getByRole("button", { name: "Save limits" }).click();
    await page.getByText("Saved. New runs use these limits.").waitFor();
    await nav("Clients").click();
  };

  beforeAll(async () => {
    assertHostBuilt();
    assertUiBuilt();
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    writeFileSync(
      path.join(home, "settings.json"),
      JSON.stringify({ httpEnabled: false, httpPort: port }),
    );
    daemon = await startUiDaemon(home);
    token = readFileSync(path.join(home, "token"), "utf8").trim();
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      colorScheme: "light",
      locale: "en-US",
    });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: daemon.origin,
    });
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(daemon.url);
    await nav("Clients").click();
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts();
    }
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
    expect(await page.getByRole("tablist", { name: "HTTP client" }).count()).toBe(0);
    expect(await snippetsCard().innerText()).not.toContain(token);
  });

  it("turned on, gives the entries the host writes for Claude Code, Cursor, VS Code and Gemini CLI", async () => {
    await setHttp(true);
    const group = httpGroup();
    await group.waitFor();
    const expected = httpClientSnippets({ url, token });
    const tabs = group.getByRole("tablist", { name: "HTTP client" }).getByRole("tab");
    expect(await tabs.allInnerTexts()).toEqual(["Claude Code", "Cursor", "VS Code", "Gemini CLI"]);
    const shown = async (title: string): Promise<string> => {
      await group.getByRole("tab", { name: title }).click();
      return group.getByLabel(`${title} HTTP entry`, { exact: true }).innerText();
    };
    expect(await shown("Claude Code")).toBe(expected.claudeCode);
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
    const copied = await page.evaluate(() =>
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
