// A person's first session, as someone who never read the README meets it: `codemode daemon
// --ui` as a real process, Debian's Chromium at 1280 and 800 px, light and dark, by mouse and
// by keyboard, real Docker runs through the shim (the SDK's Client), the real toy server. One
// daemon and one page serve the file; the tests run in order. What each checks:
// - the first screen's checklist ticks itself (a server, a client, the first run) and goes;
// - a run that raised says its exception, never Python's caret line, and runs are told apart
//   by their first comment or the tools they call, not "import asyncio";
// - the private-data rule shows on the client's row and on the run, and at the top as one
//   compact line at most: none once the client left, none when every tool is private;
// - a private tool's arguments are in the log (which file, which text) unless the tool is set
//   to hide them, and a run's detail shows what it printed;
// - every tool switch is named with its tool, and Tab stays inside a dialog;
// - at 800 px the sidebar shrinks, the audit keeps its Client and Tool columns, and a run's
//   detail opens where it is seen;
// - the chain check says when it ran and of how many entries, and counts the ones since.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { auditEntries, connectShim, toyServer, writeServers } from "../test-support/daemon.js";
import {
  screenshotBothThemes,
  waitForText,
  waitUntil,
  type PageGlobals,
} from "../test-support/browser.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { connectWsApi, type WsApi } from "../test-support/ws-api.js";

const fx = await dockerOrSkip();

const CLIENT = "first-session";

/** What Python 3.13 prints for this is a traceback whose last line but one is all carets. */
const RAISES =
  "# Add two numbers, then a typo\nimport asyncio\nprint(await toy__add({'a': 2, 'b': 3}))\nnope()";
const CALLS_ADD = "import asyncio\nprint(await toy__add({'a': 1, 'b': 1}))";
/** Reads a private tool: the client is in private-data mode from then on. */
const READS_PRIVATE =
  "print(await toy__read_secret())\nprint(await toy__echo({'text': '/home/me/salaries.csv'}))";

/** Relative luminance of an sRGB colour (WCAG 2). */
function luminance([r, g, b]: number[]): number {
  const [rl, gl, bl] = [r!, g!, b!].map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * rl! + 0.7152 * gl! + 0.0722 * bl!;
}

/**
 * The contrast of an element's text against what is behind it: its own background laid over
 * the page's (the colours are translucent in dark mode).
 */
async function contrastOf(element: Locator): Promise<number> {
  const [text, own, page] = await element.evaluate((el: unknown) => {
    const w = globalThis as unknown as {
      getComputedStyle(e: unknown): { color: string; backgroundColor: string };
      document: { body: unknown };
    };
    return [
      w.getComputedStyle(el).color,
      w.getComputedStyle(el).backgroundColor,
      w.getComputedStyle(w.document.body).backgroundColor,
    ];
  });
  const parse = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
  const base = parse(page);
  const layer = parse(own);
  const alpha = layer[3] ?? 1;
  const behind = [0, 1, 2].map((i) => layer[i]! * alpha + base[i]! * (1 - alpha));
  const fg = parse(text);
  const [a, b] = [luminance(fg), luminance(behind)].sort((x, y) => y - x);
  return (a! + 0.05) / (b! + 0.05);
}

describe.skipIf(!fx)("a first session in the browser UI", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-first-",
    docker: fx?.docker,
    open: false,
    // echo and read_secret are private; add is not, so private-data mode has something to block.
    prepare: (home) => writeServers(home, { toy: toyServer({ private: ["read_secret", "echo"] }) }),
  });
  const { home } = ui;
  let shim: McpSession | undefined;
  let ws: WsApi;

  afterAll(async () => {
    ws?.close();
    await shim?.close().catch(() => undefined);
  });

  const page = (): Page => ui.page;
  const rows = (): Locator =>
    page().getByRole("listbox", { name: "Audit entries" }).getByRole("option");
  const step = (name: string): Locator =>
    page().getByRole("listitem", { name: new RegExp(`^${name}: `) });
  const summary = (): Locator => page().getByRole("region", { name: "Private-data mode" });
  const detail = (): Locator => page().getByRole("complementary", { name: /^Run/ });
  const openRun = async (rowText: RegExp): Promise<void> => {
    await ui.nav("Audit log").click();
    await rows().filter({ hasText: rowText }).first().click();
    await detail().getByRole("heading", { level: 2 }).waitFor();
  };

  it("the first screen's checklist ticks itself and goes once all three are done", async () => {
    await page().goto(await ui.daemon.newLink());
    ws = await connectWsApi(ui.daemon.port, { ticket: await ui.daemon.ticket() });
    await page().waitForURL((url) => url.hash.startsWith("#/servers"));
    const list = page().getByRole("region", { name: "Getting started" });
    await waitForText(list, /1 of 3 done/, "the checklist, one step done");
    await step("Add a server")
      .and(page().getByRole("listitem", { name: /: done$/ }))
      .waitFor();
    await step("Connect a client")
      .and(page().getByRole("listitem", { name: /: to do$/ }))
      .waitFor();
    // The next step is a link to where it is done.
    expect(await step("Connect a client").getByRole("link").getAttribute("href")).toBe("#/clients");

    shim = await connectShim(home, { name: CLIENT, version: "1.0.0" });
    await waitForText(list, /2 of 3 done/, "the client's step ticked");
    await shim.run(CALLS_ADD);
    await waitUntil(
      () => list.count(),
      (n) => n === 0,
      "the checklist gone after the first run",
    );
  });

  it("a run that raised says its exception; runs are told apart by comment or tools", async () => {
    const result = await shim!.run(RAISES).catch(() => null);
    expect(result?.error ?? "NameError").toContain("NameError");
    await ui.nav("Audit log").click();
    const finished = rows().filter({ hasText: "Raised an error" }).first();
    const text = await waitForText(finished, /NameError: name 'nope' is not defined/);
    expect(text).not.toContain("^");
    expect(text).toContain("toy.add");
    const started = await rows().filter({ hasText: "Run started" }).allInnerTexts();
    // Newest first: the run that raised, then the first run's.
    expect(started[0]).toContain("Add two numbers, then a typo");
    expect(started[1]).toContain("calls toy.add");
    for (const row of started) expect(row).not.toContain("import asyncio");
  });

  it("the private-data rule: on the client's row, on the run, and one line at the top", async () => {
    const result = await shim!.run(READS_PRIVATE);
    expect(result.stdout).toBe("the secret is 42\n/home/me/salaries.csv\n");
    const line = summary();
    await waitForText(
      line,
      new RegExp(`Private-data mode: ${CLIENT} can only call private tools now`),
    );
    // One compact line, whatever the width: not a banner a client each.
    expect(await page().locator(".banners > *").count()).toBe(1);
    expect((await line.boundingBox())!.height).toBeLessThan(48);

    await page().getByRole("link", { name: "Details" }).click();
    const note = page().getByRole("group", { name: `Private-data mode for ${CLIENT}` });
    const noteText = await waitForText(note, /when it called read_secret on toy/);
    expect(noteText).toMatch(/it can only call private tools/);
    await note.getByRole("button", { name: `Reset private-data mode for ${CLIENT}` }).waitFor();

    await openRun(/calls toy\.read_secret|toy\.read_secret/);
    await waitForText(
      detail().getByRole("note", { name: "Private-data mode" }),
      /This run read from a private tool \(toy › read_secret\): from then on, first-session can only call private tools/,
    );
  });

  it("a private tool's arguments are logged, the run's output shown, unless hidden", async () => {
    // The run's detail is open on the run that read private data.
    const echo = detail().locator(".call-item", { hasText: "toy › echo" });
    await waitForText(
      echo.locator("pre"),
      /"text": "\/home\/me\/salaries\.csv"/,
      "echo's arguments",
    );
    await waitForText(
      detail().getByLabel("What the run printed"),
      /the secret is 42\n\/home\/me\/salaries\.csv/,
      "what the run printed",
    );
    const logged = auditEntries(home, "call", CLIENT).filter((c) => c.tool === "toy__echo");
    expect(logged.at(-1)?.args).toBe('{"text":"/home/me/salaries.csv"}');

    // Hide echo's arguments on the Servers page: the next call's are not in the log.
    await page().goto(`${ui.daemon.origin}/#/servers?name=toy`);
    const hide = page().getByRole("switch", {
      name: "Hide the arguments of echo in the audit log",
    });
    await hide.click();
    await page()
      .getByRole("switch", {
        name: "Hide the arguments of echo in the audit log",
        checked: true,
        disabled: false,
      })
      .waitFor();
    const saved = JSON.parse(readFileSync(path.join(home, "servers.json"), "utf8")) as {
      mcpServers: { toy: { hideArgs?: unknown } };
    };
    expect(saved.mcpServers.toy.hideArgs).toEqual(["echo"]);
    await shim!.run("# Echo a note\nprint(await toy__echo({'text': 'dear diary'}))");
    await waitUntil(
      () =>
        Promise.resolve(
          auditEntries(home, "call", CLIENT).filter((c) => c.tool === "toy__echo").length,
        ),
      (n) => n === 2,
      "the second echo logged",
    );
    const second = auditEntries(home, "call", CLIENT)
      .filter((c) => c.tool === "toy__echo")
      .at(-1);
    expect(second?.args).toBeNull();
    await openRun(/Echo a note/);
    await waitForText(detail(), /Its arguments are not in the log: the tool is set to hide them/);
  });

  it("names every tool switch with its tool", async () => {
    await page().goto(`${ui.daemon.origin}/#/servers?name=toy`);
    for (const name of ["Allow echo", "Ask first before echo", "echo is private", "Allow add"]) {
      await page().getByRole("switch", { name, exact: true }).waitFor();
    }
    // No two switches share a name.
    const names = await page()
      .getByRole("switch")
      .evaluateAll((els: unknown[]) =>
        els.map((el) =>
          (el as { getAttribute(n: string): string | null }).getAttribute("aria-label"),
        ),
      );
    expect(new Set(names).size).toBe(names.length);
  });

  it("Tab goes round inside a dialog, and never leaves it", async () => {
    await page().goto(`${ui.daemon.origin}/#/servers`);
    await page().getByRole("button", { name: "Add server" }).click();
    const dialog = page().getByRole("dialog", { name: "Add server" });
    await dialog.waitFor();
    const insideDialog = () =>
      page().evaluate(() => {
        const doc = (
          globalThis as unknown as {
            document: { activeElement: { closest(s: string): unknown } | null };
          }
        ).document;
        return doc.activeElement?.closest("dialog") != null;
      });
    // Further than one round of its controls (the gallery has one button per server).
    for (let i = 0; i < 40; i++) {
      await page().keyboard.press("Tab");
      expect(await insideDialog(), `after Tab ${i + 1}`).toBe(true);
    }
    for (let i = 0; i < 40; i++) {
      await page().keyboard.press("Shift+Tab");
      expect(await insideDialog(), `after Shift+Tab ${i + 1}`).toBe(true);
    }
    await page().keyboard.press("Escape");
    await waitUntil(
      () => dialog.count(),
      (n) => n === 0,
      "the dialog closed",
    );
  });

  it("in dark mode the private-data line and the run's note stay readable", async () => {
    await ui.nav("Clients").click();
    await summary().waitFor();
    await screenshotBothThemes(page(), "first-session-clients");
    await page().emulateMedia({ colorScheme: "dark" });
    try {
      await waitUntil(
        () =>
          page().evaluate(
            () => (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme,
          ),
        (t) => t === "dark",
        "the dark theme",
      );
      expect(await contrastOf(summary())).toBeGreaterThanOrEqual(4.5);
      expect(await contrastOf(page().locator(".private-note .badge"))).toBeGreaterThanOrEqual(4.5);
      await openRun(/calls toy\.read_secret|toy\.read_secret/);
      expect(
        await contrastOf(detail().getByRole("note", { name: "Private-data mode" })),
      ).toBeGreaterThanOrEqual(4.5);
    } finally {
      await page().emulateMedia({ colorScheme: "light" });
    }
  });

  it("at 800 px: a narrow sidebar, the Client and Tool columns, the detail in sight", async () => {
    await page().setViewportSize({ width: 800, height: 700 });
    try {
      await ui.nav("Audit log").click();
      const sidebar = page().getByRole("navigation", { name: "Main" });
      expect((await sidebar.boundingBox())!.width).toBeLessThanOrEqual(72);
      // The labels stay for screen readers; the button widens it again.
      await ui.nav("Audit log").waitFor();
      const header = page().locator(".audit-list-header");
      for (const column of ["Client", "Server › tool", "Summary"]) {
        const box = await header.getByText(column, { exact: true }).boundingBox();
        expect(box, column).not.toBeNull();
        expect(box!.width, column).toBeGreaterThan(30);
      }
      const call = rows().filter({ hasText: "toy › add" }).first();
      expect(await call.locator(".col-client").innerText()).toBe(CLIENT);
      await rows().filter({ hasText: "Raised an error" }).first().click();
      const panel = detail();
      await panel.getByRole("heading", { level: 2 }).waitFor();
      const box = (await panel.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(700);
      expect(box.x + box.width).toBeLessThanOrEqual(800);
      await waitForText(panel, /NameError/);
      // By keyboard: Enter moves into the panel, Escape closes it and gives the list back.
      await page().keyboard.press("Enter");
      await waitUntil(
        () =>
          page().evaluate(() => {
            const doc = (
              globalThis as unknown as {
                document: { activeElement: { closest(s: string): unknown } | null };
              }
            ).document;
            return doc.activeElement?.closest("aside") != null;
          }),
        (inside) => inside,
        "focus in the detail",
      );
      await page().keyboard.press("Escape");
      await waitUntil(
        () => panel.count(),
        (n) => n === 0,
        "the detail closed by Escape",
      );
      await rows().filter({ hasText: "Raised an error" }).first().click();
      await panel.getByRole("heading", { level: 2 }).waitFor();
      // The private-data line is still one short line at this width.
      expect((await summary().boundingBox())!.height).toBeLessThan(48);
      await screenshotBothThemes(page(), "first-session-audit-800");
      await page().getByRole("button", { name: "Show the sidebar's labels" }).click();
      expect((await sidebar.boundingBox())!.width).toBeGreaterThan(150);
      await page().getByRole("button", { name: "Shrink the sidebar to icons" }).click();
    } finally {
      // Back to the width's own choice, and the width of the other tests.
      await page().evaluate(() =>
        (globalThis as unknown as PageGlobals).localStorage.removeItem("codemode.sidebar"),
      );
      await page().setViewportSize({ width: 1280, height: 860 });
    }
  });

  it("the chain check says when and of how many entries, and counts the entries since", async () => {
    await ui.nav("Audit log").click();
    const close = page().getByRole("button", { name: "Close details" });
    if ((await close.count()) > 0) await close.click();
    const verify = page().getByRole("status", { name: "Chain verification" });
    await page()
      .getByRole("button", { name: /^Verify/ })
      .click();
    const said = await waitForText(
      verify,
      /Chain verified at \d{1,2}:\d\d:\d\d( [AP]M)?: \d+ entries/,
    );
    const checked = Number(/: (\d+) entries/.exec(said)![1]);
    await shim!.run("print(1)");
    await waitForText(verify, /newer entr(y|ies) not checked yet/, "the entries since");
    await page().getByRole("button", { name: "Verify again" }).click();
    await waitUntil(
      () => verify.innerText(),
      (t) => !t.includes("not checked yet") && Number(/: (\d+) entries/.exec(t)?.[1]) > checked,
      "a new check of every entry",
    );
    // The private-data line goes once the client has left.
    await shim!.close();
    shim = undefined;
    await waitUntil(
      () => summary().count(),
      (n) => n === 0,
      "no line for a client that left",
    );
    await ui.nav("Clients").click();
    await waitForText(
      page().locator(".private-gone"),
      new RegExp(`In private-data mode, not connected now[\\s\\S]*${CLIENT}`),
    );
  });

  it("no private-data line when every tool is private: there is nothing to block", async () => {
    const { json } = await ws.request("config.get", {});
    const config = JSON.parse(json) as { mcpServers: Record<string, Record<string, unknown>> };
    config.mcpServers.toy = { ...config.mcpServers.toy, allow: ["read_secret", "echo"] };
    await ws.request("config.save", { json: JSON.stringify(config) });
    shim = await connectShim(home, { name: CLIENT, version: "1.0.0" });
    await ui.nav("Clients").click();
    // Still in private-data mode (the row says so), but nothing is held back: no line on top.
    await waitForText(
      page().getByRole("group", { name: `Private-data mode for ${CLIENT}` }),
      /it can only call private tools/,
    );
    expect(await summary().count()).toBe(0);
  });
});
