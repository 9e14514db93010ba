// Adding a server the way a non-developer does: `codemode daemon --ui` as a real process on a
// temporary CODEMODE_HOME, Debian's Chromium, the gallery searched, "memory" chosen, tried
// (the published server-memory, started by npx from this checkout) and added; it becomes
// ready with its tools. A failing try shows the server's stderr and asks before adding.
// Its screenshots go to e2e/artifacts/; with CODEMODE_DOCS_SCREENSHOTS=1 they refresh the
// pictures in docs/ instead, which the README and docs/servers.md show (so a plain test run
// leaves the checkout clean).
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_CATALOG } from "../shared/server-catalog/server-catalog.js";
import { ARTIFACTS_DIR, waitForText } from "../test-support/browser.js";
import { repoRoot } from "../test-support/processes.js";
import { useUiPage } from "../test-support/ui-page.js";

/** A try may start a server through npx, which takes a few seconds on 2 busy cores. */
const TRY_TIMEOUT_MS = 60_000;

const PICTURES_DIR =
  process.env.CODEMODE_DOCS_SCREENSHOTS === "1" ? path.join(repoRoot, "docs") : ARTIFACTS_DIR;

describe("adding a server from the gallery (browser UI)", () => {
  // The first test opens the page.
  const ui = useUiPage({ homePrefix: "codemode-gallery-", open: false });
  const { home } = ui;

  const saved = (): Record<string, Record<string, unknown>> =>
    (
      JSON.parse(readFileSync(path.join(home, "servers.json"), "utf8")) as {
        mcpServers: Record<string, Record<string, unknown>>;
      }
    ).mcpServers;

  it("opens Add server on a searchable gallery of the catalog", async () => {
    await ui.page.goto(await ui.daemon.newLink());
    await ui.page.waitForURL((url) => url.hash.startsWith("#/servers"));
    await ui.page.getByRole("button", { name: "Add server" }).click();
    const gallery = ui.page.getByRole("dialog", { name: "Add server" });
    const cards = gallery.getByRole("list", { name: "Well-known servers" }).getByRole("button");
    await cards.first().waitFor();
    expect(await cards.count()).toBe(SERVER_CATALOG.length);
    await ui.page.mouse.move(1278, 858);
    mkdirSync(PICTURES_DIR, { recursive: true });
    await ui.page.screenshot({
      path: path.join(PICTURES_DIR, "server-gallery.png"),
      animations: "disabled",
      caret: "hide",
    });

    await gallery.getByRole("searchbox", { name: "Search servers" }).fill("knowledge graph");
    await ui.page.waitForFunction(
      () =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll(".gallery-card").length === 1,
    );
    expect(await cards.allTextContents()).toEqual([expect.stringContaining("Memory")]);
    // The blank form and Paste JSON stay.
    await gallery.getByRole("button", { name: "Blank form" }).waitFor();
    await gallery.getByRole("button", { name: "Paste JSON" }).waitFor();
  });

  it("chooses memory, tries it, sees its tools, adds it, and it becomes ready", async () => {
    await ui.page.getByRole("button", { name: "Memory", exact: true }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Add Memory" });
    // Only what memory needs: its name and the one optional file (left empty: the default).
    // Counted once the form is there: count() does not wait for the dialog to render.
    await dialog.getByLabel("Memory file").waitFor();
    expect(await dialog.getByRole("textbox").count()).toBe(2);
    // The form says which tools will ask first: those that change or delete what it remembers.
    const asks = await dialog.getByTestId("catalog-ask").innerText();
    expect(asks).toMatch(/Asks you first before the tools that change or send things/);
    for (const tool of ["create_entities", "delete_entities", "delete_relations"]) {
      expect(asks).toContain(tool);
    }

    await dialog.getByRole("button", { name: "Try it" }).click();
    const worked = dialog.getByRole("status", { name: "Try it worked" });
    await worked.waitFor({ timeout: TRY_TIMEOUT_MS });
    const tools = await worked.getByRole("list", { name: "Tools it offers" }).textContent();
    expect(tools).toContain("memory__create_entities");
    expect(tools).toContain("memory__read_graph");
    await ui.page.mouse.move(1278, 858);
    await ui.page.screenshot({
      path: path.join(PICTURES_DIR, "server-try-it.png"),
      animations: "disabled",
      caret: "hide",
    });

    await dialog.getByRole("button", { name: "Add server" }).click();
    await ui.page.waitForURL((url) => url.hash.includes("name=memory"));
    await ui.page.getByText("create_entities").first().waitFor({ timeout: TRY_TIMEOUT_MS });
    expect(saved().memory).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-memory"],
      env: {},
      private: true,
      ask: SERVER_CATALOG.find((e) => e.id === "memory")!.ask,
    });
    // On its page: deleting asks first, reading does not.
    await ui.page
      .getByRole("switch", { name: "Ask first before delete_entities", checked: true })
      .waitFor();
    await ui.page
      .getByRole("switch", { name: "Ask first before read_graph", checked: false })
      .waitFor();
  });

  it("shows a failing try's stderr and a hint, and asks before adding it anyway", async () => {
    await ui.page.goto(`${ui.daemon.origin}/#/servers`);
    await ui.page.getByRole("button", { name: "Add server" }).click();
    await ui.page.getByRole("button", { name: "Filesystem", exact: true }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Add Filesystem" });
    // Required settings are named before anything starts.
    await dialog.getByRole("button", { name: "Add server" }).click();
    await dialog.getByText("Folders it may use is required").waitFor();

    const missing = path.join(home, "no-such-folder");
    await dialog.getByLabel("Folders it may use").fill(missing);
    await dialog.getByRole("button", { name: "Try it" }).click();
    const failedTry = dialog.getByRole("alert", { name: "Try it failed" });
    await failedTry.waitFor({ timeout: TRY_TIMEOUT_MS });
    const text = await failedTry.textContent();
    expect(text).toContain(`This folder or file does not exist: ${missing}`);
    expect(text).toContain("None of the specified directories are accessible");

    await dialog.getByRole("button", { name: "Add server" }).click();
    await dialog.getByText("did not start when you tried it. Add it anyway?").waitFor();
    await dialog.getByRole("button", { name: "Back" }).click();
    await ui.page
      .getByRole("dialog", { name: "Add server" })
      .getByRole("button", { name: "Close" })
      .click();
    expect(Object.keys(saved())).toEqual(["memory"]);
  });

  it("tries a server from the blank form too, and asks before saving one that failed", async () => {
    await ui.page.getByRole("button", { name: "Add server" }).click();
    await ui.page.getByRole("button", { name: "Blank form" }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Add server" });
    await dialog.getByLabel("Name", { exact: true }).fill("typo");
    await dialog.getByLabel("Command", { exact: true }).fill("codemode-no-such-program");
    await dialog.getByRole("button", { name: "Try it" }).click();
    const failedTry = dialog.getByRole("alert", { name: "Try it failed" });
    await failedTry.waitFor({ timeout: TRY_TIMEOUT_MS });
    expect(await failedTry.textContent()).toContain(
      '"codemode-no-such-program" was not found on the PATH servers get',
    );
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("button", { name: "Save anyway" }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(Object.keys(saved())).toEqual(["memory"]);
  });

  it("the Audit page lists every try: who, the command, how it ended", async () => {
    await ui.nav("Audit log").click();
    await ui.page.getByLabel("Kind").selectOption({ label: "Server tried" });
    const list = ui.page.getByRole("listbox", { name: "Audit entries" });
    await waitForText(
      list,
      /Started in the browser: npx -y @modelcontextprotocol\/server-memory/,
      "memory's try",
    );
    await waitForText(list, /Started in the browser: codemode-no-such-program/, "the typo's try");
    // Memory, the missing folder, the typo: only tries are listed once the filter applies.
    await expect
      .poll(() => list.getByRole("option").allInnerTexts(), { timeout: 10_000 })
      .toEqual([
        expect.stringContaining("Server tried"),
        expect.stringContaining("Server tried"),
        expect.stringContaining("Server tried"),
      ]);
    await ui.page.getByLabel("Kind").selectOption({ label: "Try finished" });
    await waitForText(list, /Started and listed \d+ tools in .+, then stopped/, "memory's tools");
    await waitForText(list, /Did not start: /, "a failed try");
  });
});
