// A user's path through the browser UI, clicked as they would: `codemode daemon --ui` as a
// real process on a temporary CODEMODE_HOME, Debian's Chromium, real Docker, the real toy
// server, and a real MCP client (the SDK's Client over `codemode shim`). One daemon and one
// page serve the whole file; the tests run in order, each starting where the last one left
// the page. Screenshots of every page, light and dark, go to e2e/artifacts/.

import { readFileSync } from "node:fs";
import path from "node:path";
import type { Locator } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt, TOY_SERVER_JS } from "../test-servers/toy-server.js";
import { auditEntries, connectShim, homeContainers } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  ARTIFACTS_DIR,
  descriptionOf,
  type PageGlobals,
  rawGet,
  screenshotBothThemes,
  themeOf,
  toggleTheme,
  waitForText,
  waitForTexts,
  waitUntil,
} from "../test-support/browser.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { ticketOf } from "../test-support/ws-api.js";

const fx = await dockerOrSkip();

const CLIENT = "e2e-client";

/**
 * The run the client sends. `toy__send` is switched off, so the catalog has no function for
 * it: the code makes one the way the runner does (any code in the sandbox can) and the
 * bridge refuses it as an unknown tool. read_secret is private, so echo after it is refused.
 */
const RUN_CODE = `import json

async def attempt(call):
    try:
        return "ok: " + await call
    except ToolError as error:
        return "refused: " + str(error)

# toy__send is not allowed, so it is not in the catalog: ask for it by name anyway.
host = toy__add.__closure__[toy__add.__code__.co_freevars.index("host")].cell_contents
toy__send = toy__add.__globals__["_make_tool"](host, "toy__send", "")

print(json.dumps({
    "add": await attempt(toy__add({"a": 2, "b": 3})),
    "send": await attempt(toy__send({"to": "someone@example.com", "body": "hello"})),
    "secret": await attempt(toy__read_secret()),
    "echo": await attempt(toy__echo({"text": "the secret is 42"})),
}))
`;

const UNKNOWN_SEND = /Unknown tool .?toy__send.?: it is not among the tools this run may call/;
const TAINT_ECHO =
  /toy__echo.? refused: this client called the private tool .?toy__read_secret.?, so only private tools can be called/;

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// the runs the client makes need the engine and the sandbox image global setup built.
describe.skipIf(!fx)("the UI, clicked through as a user would", () => {
  // The first test opens the page.
  const ui = useUiPage({
    homePrefix: "codemode-ui-",
    docker: fx?.docker,
    open: false,
    prepare: () => assertToyServerBuilt(),
    afterStop: async (daemon) => {
      // The link, and nothing else, on stdout.
      expect(daemon.stdout()).toBe(`${daemon.printedUrl}\n`);
      // The daemon took its containers with it (warm pool included).
      if (fx) expect(await homeContainers(fx.docker, home)).toEqual([]);
    },
  });
  const { home } = ui;
  const serversFile = path.join(home, "servers.json");
  let client: McpSession | undefined;

  const shoot = async (name: string, options: { minHeight?: number } = {}): Promise<void> => {
    await screenshotBothThemes(ui.page, name, options);
  };
  const readServers = (): string => readFileSync(serversFile, "utf8");
  const savedEntries = (): Record<string, Record<string, unknown>> =>
    (JSON.parse(readServers()) as { mcpServers: Record<string, Record<string, unknown>> })
      .mcpServers;
  const appStatus = (): Locator => ui.page.getByRole("status", { name: "App status" });
  const auditRows = (): Locator =>
    ui.page.getByRole("listbox", { name: "Audit entries" }).getByRole("option");
  const serverRow = (name: string): Locator =>
    ui.page
      .getByRole("list", { name: "Servers" })
      .getByRole("listitem")
      .filter({ has: ui.page.getByRole("link", { name, exact: true }) });

  afterAll(async () => {
    await client?.close().catch(() => undefined);
  });

  it("first run: shows Docker running and the sandbox image built", async () => {
    const link = await ui.daemon.newLink();
    await ui.page.goto(link);
    // Everything is ready, so the app goes straight to Servers; First run is one link away.
    await ui.page.waitForURL((url) => url.hash === "#/servers");
    // The ticket left the visible URL.
    expect(ui.page.url()).not.toContain(ticketOf(link));
    await waitForText(appStatus(), /^Ready$/, "the app status Ready");
    await ui.page.goto(`${ui.daemon.origin}/#/first-run`);
    await ui.page.getByRole("heading", { name: "Docker" }).waitFor();

    const dockerCard = ui.page.getByRole("region", { name: "Docker" });
    await waitForText(dockerCard, /Running[\s\S]*Docker .* is running/, "Docker running");
    const imageCard = ui.page.getByRole("region", { name: "Sandbox image" });
    await waitForText(
      imageCard,
      /Ready[\s\S]*The image with Python and its libraries is built\./,
      "the image built",
    );
    // Present, so the button offers a rebuild, not a first build.
    await imageCard.getByRole("button", { name: "Rebuild image" }).waitFor();
    expect(await imageCard.getByRole("button", { name: "Build image", exact: true }).count()).toBe(
      0,
    );

    // The header's theme button: the choice is kept across a reload.
    await toggleTheme(ui.page, "dark");
    await ui.page.reload();
    await imageCard.waitFor();
    expect(await themeOf(ui.page)).toBe("dark");
    await toggleTheme(ui.page, "light");
    // Back to following the system, so the screenshots can switch it even under a dialog.
    await ui.page.evaluate(() =>
      (globalThis as unknown as PageGlobals).localStorage.removeItem("codemode.theme"),
    );
    await ui.page.reload();
    await imageCard.waitFor();
    await shoot("01-first-run");
  });

  it("sandbox: the image is the current one (no rebuild asked for)", async () => {
    await ui.nav("Sandbox").click();
    await ui.page.getByRole("heading", { name: "Limits" }).waitFor();
    const imageCard = ui.page.getByRole("region", { name: "Sandbox image" });
    // The tag global setup built, and "Ready", not "Out of date".
    await imageCard.getByText(fx!.image, { exact: true }).waitFor();
    await waitForText(imageCard, /Python\s+3\.\d+/, "the image's Python version");
    // PRODUCT BUG (shown here, soft so the path goes on): the host's `stale` lists older
    // sandbox images still on the engine, but the page reads it as "this image is out of
    // date" and asks for a rebuild, which would not change anything.
    const card = await imageCard.innerText();
    expect.soft(card, "the current image is not out of date").toMatch(/^Sandbox image\s+Ready/);
    expect.soft(card).not.toContain("This image is out of date.");
    await ui.page.getByRole("button", { name: "Save limits" }).waitFor();
    await shoot("02-sandbox");
  });

  it("adds the toy server with the form; it starts and shows its tool count", async () => {
    await ui.nav("Servers").click();
    await ui.page.getByText("No servers yet").waitFor();
    await shoot("03-servers-empty");

    await ui.page.getByRole("button", { name: "Add server" }).click();
    // Add server opens the gallery of well-known servers; the blank form is one click on.
    await ui.page.getByRole("button", { name: "Blank form" }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Add server" });
    await dialog.getByLabel("Name", { exact: true }).fill("toy");
    await dialog.getByLabel("Command", { exact: true }).fill(process.execPath);
    await dialog.getByLabel("Arguments", { exact: true }).fill(TOY_SERVER_JS);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });

    // Saving opens the server's page.
    await ui.page.getByRole("heading", { name: "toy", level: 2 }).waitFor();
    const { env, ...entry } = savedEntries().toy!;
    expect(entry).toEqual({ command: process.execPath, args: [TOY_SERVER_JS] });
    expect([undefined, {}]).toContainEqual(env);

    await ui.page.getByRole("link", { name: "All servers" }).click();
    const row = serverRow("toy");
    await waitForText(row, /Ready[\s\S]*12 tools/, "toy ready with 12 tools");
  });

  it("lists the toy's tools; send is switched off and read_secret marked private", async () => {
    await serverRow("toy").getByRole("link", { name: "toy" }).click();
    const tools = ui.page.getByRole("list", { name: "Tools of toy" });
    const names = await waitForTexts(
      tools.getByRole("heading", { level: 4 }),
      (t) => t.length === 12,
      "12 tools listed",
    );
    expect(names.sort()).toEqual(
      [
        "add",
        "add_tool",
        "big",
        "crash",
        "deep",
        "echo",
        "env",
        "fail",
        "get-weather",
        "read_secret",
        "send",
        "sleep",
      ].sort(),
    );
    const tool = (name: string): Locator =>
      tools
        .getByRole("listitem")
        .filter({ has: ui.page.getByRole("heading", { name, exact: true }) });

    // A tool the catalog leaves out says so, with its own reason (read from data, not prose).
    await waitForText(
      tool("deep"),
      /Left out: schema[\s\S]*Not callable: its input schema is nested deeper than/,
      "deep's left-out reason",
    );

    await tool("send").getByRole("switch", { name: "Allow send" }).click();
    await tool("send")
      .getByRole("switch", { name: "Allow send", checked: false, disabled: false })
      .waitFor();
    await tool("read_secret").getByRole("switch", { name: "read_secret is private" }).click();
    await tool("read_secret")
      .getByRole("switch", { name: "read_secret is private", checked: true, disabled: false })
      .waitFor();
    await waitForText(tool("read_secret"), /Private/, "the Private badge");

    // Saved for the next start: send is no longer allowed, read_secret is private.
    const saved = savedEntries().toy!;
    expect(saved.private).toEqual(["read_secret"]);
    const allow = saved.allow as string[] | undefined;
    const deny = saved.deny as string[] | undefined;
    expect(
      (allow !== undefined && !allow.includes("send") && allow.includes("echo")) ||
        (deny !== undefined && deny.includes("send")),
      JSON.stringify(saved),
    ).toBe(true);

    // A reload shows what was saved, not what the page remembered.
    await ui.page.reload();
    await tool("send").getByRole("switch", { name: "Allow send", checked: false }).waitFor();
    await tool("read_secret")
      .getByRole("switch", { name: "read_secret is private", checked: true })
      .waitFor();
    await tool("echo").getByRole("switch", { name: "Allow echo", checked: true }).waitFor();
    await waitForText(appStatus(), /^Ready$/, "the app info loaded");
    await shoot("04-server-tools");

    // PRODUCT BUG (soft, so the rest of the path can still be checked): switching one tool
    // off writes an allowlist of every listed tool but that one, "deep" included, which the
    // catalog leaves out for its schema. The catalog then refuses the config and silently
    // keeps the old tools: send stays callable and read_secret is not private, whatever
    // the switches and servers.json say. The app info reports it as a "startup problem".
    const catalogProblem = ui.page.getByText(/The tool catalog could not be updated/);
    const problems = await catalogProblem.count();
    expect.soft(problems, "the switches were applied to the live catalog").toBe(0);
    if (problems > 0) {
      // What a user who read the banner would do: switch the left-out tool off as well.
      await tool("deep").getByRole("switch", { name: "Allow deep" }).click();
      await tool("deep")
        .getByRole("switch", { name: "Allow deep", checked: false, disabled: false })
        .waitFor();
      await ui.page.reload();
      await waitForText(appStatus(), /^Ready$/, "the app info loaded");
      await tool("read_secret")
        .getByRole("switch", { name: "read_secret is private", checked: true })
        .waitFor();
      expect(await catalogProblem.count()).toBe(0);
    }
  });

  it("shows a client's run and its calls live in the audit log, with the refusals' reasons", async () => {
    await ui.nav("Audit log").click();
    await ui.page.getByRole("listbox", { name: "Audit entries" }).waitFor();
    await ui.page.getByText("Live", { exact: true }).waitFor();
    // Marks this document: if the rows only came with a reload, the mark would be gone.
    await ui.page.evaluate(() => {
      (globalThis as unknown as PageGlobals).e2eMark = "no reload";
    });
    expect(await auditRows().filter({ hasText: "Tool call" }).count()).toBe(0);

    client = await connectShim(home, { name: CLIENT, version: "1.0.0" });
    const result = await client.run(RUN_CODE);
    expect(result.error, JSON.stringify(result)).toBeNull();
    const outcome = JSON.parse(result.stdout) as Record<string, string>;
    expect(outcome.add).toBe('ok: {"sum":5}');
    expect(outcome.send).toMatch(UNKNOWN_SEND);
    expect(outcome.secret).toBe("ok: the secret is 42");
    expect(outcome.echo).toMatch(TAINT_ECHO);

    // The rows arrive in the open page: the run, its four calls, private mode on, its end.
    const rows = await waitForTexts(
      auditRows(),
      (texts) =>
        texts.filter((t) => t.includes("Tool call")).length === 4 &&
        texts.some((t) => t.includes("Run finished")),
      "the run's rows to appear live",
    );
    expect(await ui.page.evaluate(() => (globalThis as unknown as PageGlobals).e2eMark)).toBe(
      "no reload",
    );
    const calls = rows.filter((t) => t.includes("Tool call")).reverse();
    expect(calls).toHaveLength(4);
    expect(calls[0]).toMatch(/e2e-client\s+toy › add\s+Allowed/);
    expect(calls[1]).toMatch(/e2e-client\s+toy__send\s+Refused/);
    expect(calls[1]).toMatch(UNKNOWN_SEND);
    expect(calls[2]).toMatch(/toy › read_secret\s+Allowed[\s\S]*private/);
    expect(calls[3]).toMatch(/toy › echo\s+Refused/);
    expect(calls[3]).toMatch(TAINT_ECHO);
    expect(rows.some((t) => /Private mode on[\s\S]*e2e-client called a private tool/.test(t))).toBe(
      true,
    );
    // The run's end names the tools it called (refused ones too), not a bare count.
    expect(
      rows.some((t) =>
        /Run finished[\s\S]*Finished in .* · toy\.add, toy\.send, toy\.read_secret, toy\.echo/.test(
          t,
        ),
      ),
    ).toBe(true);
  });

  it("says private-data mode in one line on top, and the client, time and tool on its row", async () => {
    const line = ui.page.getByRole("region", { name: "Private-data mode" });
    await waitForText(line, /Private-data mode: e2e-client can only call private tools now/);
    await line.getByRole("link", { name: "Details" }).click();
    const note = ui.page.getByRole("group", { name: `Private-data mode for ${CLIENT}` });
    const text = await waitForText(note, /when it called read_secret on toy \(a private tool\)/);
    // The time is the moment the client read private data, as the page formats times.
    const taintAt = auditEntries(home, "taint_set", CLIENT)[0]!.ts;
    const formatted = await ui.page.evaluate(
      (iso) =>
        [0, -60_000, 60_000].map((shift) =>
          new Intl.DateTimeFormat(undefined, {
            year: "numeric",
            month: "short",
            day: "numeric",
            hour: "2-digit",
            minute: "2-digit",
          }).format(new Date(Date.parse(iso) + shift)),
        ),
      taintAt,
    );
    expect(
      formatted.some((f) => text.includes(`Since ${f}`)),
      `${text} / ${formatted[0]}`,
    ).toBe(true);
    await ui.nav("Audit log").click();
  });

  it("filters the log by decision and by text", async () => {
    await ui.page.getByLabel("Decision").selectOption("refused");
    const refused = await waitForTexts(
      auditRows(),
      (texts) => texts.length === 2 && texts.every((t) => t.includes("Refused")),
      "only the two refused calls",
    );
    expect(refused.join("\n")).toMatch(UNKNOWN_SEND);
    expect(refused.join("\n")).toMatch(TAINT_ECHO);
    await ui.page.getByRole("button", { name: "Clear filters" }).click();
    await waitForTexts(auditRows(), (texts) => texts.length > 2, "every entry back");

    await ui.page.getByLabel("Search").fill("Unknown tool");
    const found = await waitForTexts(
      auditRows(),
      (texts) => texts.length === 1,
      "only the call refused as unknown",
    );
    expect(found[0]).toMatch(/toy__send\s+Refused/);

    await ui.page.getByLabel("Search").fill("no such text in the log");
    await ui.page.getByText("No entries match these filters").waitFor();
    await ui.page.getByRole("button", { name: "Clear filters" }).click();
    await waitForTexts(auditRows(), (texts) => texts.length > 2, "every entry back");
    await shoot("05-audit-log");
  });

  it("shows the run in the detail panel: code, calls in order with reasons, result", async () => {
    await auditRows().filter({ hasText: "toy__send" }).first().click();
    const detail = ui.page.getByRole("complementary", { name: /^Run/ });
    await detail.waitFor();
    const runId = auditEntries(home, "run_started", CLIENT)[0]!.runId;
    await waitForText(detail.getByRole("heading", { level: 2 }), new RegExp(`Run\\s*${runId}`));

    const code = await waitForText(detail.getByLabel("Code of the run"), /toy__read_secret/);
    expect(code.trim()).toBe(RUN_CODE.trim());

    const calls = await waitForTexts(
      detail.locator("ol.call-list > li"),
      (t) => t.length === 4,
      "the four calls",
    );
    expect(calls[0]).toMatch(/^toy › add\s+Allowed/);
    expect(calls[1]).toMatch(/^toy__send\s+Refused/);
    expect(calls[1]).toMatch(UNKNOWN_SEND);
    expect(calls[2]).toMatch(/^toy › read_secret\s+Allowed\s+Private/);
    // A private tool's arguments are logged too (where the data was, not the data).
    expect(calls[2]).toMatch(/Arguments \(2 bytes\)/);
    expect(calls[3]).toMatch(/^toy › echo\s+Refused/);
    expect(calls[3]).toMatch(TAINT_ECHO);
    // The selected row's call is marked in the panel.
    expect(await detail.locator('ol.call-list > li[aria-current="true"]').innerText()).toMatch(
      /toy__send/,
    );

    const text = await detail.innerText();
    expect(text).toMatch(/Client\s+e2e-client/);
    expect(text).toMatch(/Result\s+Finished/);
    expect(text).toMatch(/Exit code\s+0/);
    expect(text).toMatch(/Calls\s+4/);
    expect(text).toMatch(/Output\s+\d+ bytes printed/);
    await shoot("06-audit-detail", { minHeight: 1500 });
  });

  it("resets private-data mode after a warning, and the client may call every tool again", async () => {
    await ui.nav("Clients").click();
    const banner = ui.page.getByRole("group", { name: `Private-data mode for ${CLIENT}` });
    await banner.getByRole("button", { name: `Reset private-data mode for ${CLIENT}` }).click();
    const dialog = ui.page.getByRole("dialog", { name: `Reset private-data mode for ${CLIENT}?` });
    await waitForText(
      dialog,
      /e2e-client’s conversation may still hold the private data\.[\s\S]*start a new conversation/,
      "the warning",
    );
    await shoot("07-reset-warning");
    await dialog.getByRole("button", { name: "Reset private-data mode" }).click();
    await dialog.waitFor({ state: "detached" });
    await banner.waitFor({ state: "detached" });
    await ui.nav("Audit log").click();
    await auditRows().filter({ hasText: "Private mode reset" }).first().waitFor();

    const again = await client!.run('print(await toy__echo({"text": "free again"}))');
    expect(again.stdout).toBe("free again\n");
  });

  it("clients: shows the connected client", async () => {
    await ui.nav("Clients").click();
    const connected = ui.page.getByRole("region", { name: "Connected now" });
    await waitForText(connected, /e2e-client\s+1\.0\.0/, "the connected client");
    // The snippets are tabs: one client's config at a time.
    await ui.page.getByRole("tab", { name: "Cursor" }).click();
    await ui.page.getByRole("tab", { name: "Cursor", selected: true }).waitFor();
    await ui.page.getByLabel("Cursor config", { exact: true }).waitFor();
    // PRODUCT BUG (soft): `.tab-panel { display: flex }` overrides the `hidden` attribute,
    // so every tab's panel shows at once.
    expect
      .soft(
        await ui.page.getByLabel("Claude Desktop config", { exact: true }).isVisible(),
        "a hidden tab panel shows",
      )
      .toBe(false);
    await ui.page.getByRole("tab", { name: "Claude Desktop" }).click();
    await shoot("08-clients");
  });

  it("keeps an invalid form from saving: the error is on the field, servers.json is untouched", async () => {
    await ui.nav("Servers").click();
    await serverRow("toy").waitFor();
    const before = readServers();

    await ui.page.getByRole("button", { name: "Add server" }).click();
    // Add server opens the gallery of well-known servers; the blank form is one click on.
    await ui.page.getByRole("button", { name: "Blank form" }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Add server" });
    const name = dialog.getByLabel("Name", { exact: true });
    const command = dialog.getByLabel("Command", { exact: true });

    // A name with a space: the host refuses it, and says so on the Name field.
    await name.fill("my notes");
    await command.fill(process.execPath);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.locator('input[aria-invalid="true"]').first().waitFor();
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    expect(await descriptionOf(name)).toMatch(/may only hold ASCII letters, digits, "_" and "-"/);
    expect(await command.getAttribute("aria-invalid")).toBeNull();
    await shoot("09-form-error-name");

    // An empty command: the form says so on the Command field before asking the host.
    await name.fill("notes");
    await command.fill("");
    await dialog.getByRole("button", { name: "Save" }).click();
    await waitUntil(
      () => command.getAttribute("aria-invalid"),
      (v) => v === "true",
      "the Command field marked invalid",
    );
    expect(await descriptionOf(command)).toMatch(/Say which program starts the server\./);
    // PRODUCT BUG (soft, so the rest is checked): the host's error about the old name stays
    // on the Name field after the name was corrected.
    expect
      .soft(await descriptionOf(name), "the Name field still shows the error of a name since fixed")
      .not.toMatch(/may only hold ASCII letters/);
    expect.soft(await name.getAttribute("aria-invalid")).toBeNull();

    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(readServers()).toBe(before);
    await ui.page.reload();
    await serverRow("toy").waitFor();
    expect(
      await ui.page.getByRole("list", { name: "Servers" }).getByRole("link").allInnerTexts(),
    ).toEqual(["toy"]);
  });

  it("imports servers from a pasted mcpServers snippet", async () => {
    await ui.page.getByRole("button", { name: "Paste JSON" }).click();
    const dialog = ui.page.getByRole("dialog", { name: "Paste JSON" });
    const snippet = JSON.stringify(
      { mcpServers: { toy2: { command: process.execPath, args: [TOY_SERVER_JS] } } },
      null,
      2,
    );
    await dialog.getByLabel("Snippet").fill(snippet);
    await dialog.getByRole("button", { name: "Preview" }).click();
    const found = dialog.getByRole("list", { name: "Servers found" });
    await waitForText(found, /toy2[\s\S]*toy-server\.js/, "toy2 in the preview");
    await shoot("10-paste-json-preview");
    await dialog.getByRole("button", { name: "Add these servers" }).click();
    await dialog.waitFor({ state: "detached" });

    await waitForText(serverRow("toy2"), /Ready[\s\S]*12 tools/, "toy2 ready with 12 tools");
    expect(Object.keys(savedEntries()).sort()).toEqual(["toy", "toy2"]);
    await shoot("11-servers");
  });

  it("edits a server with a secret: the saved secret is kept by name, never sent back as its mask", async () => {
    const secret = "sk-ui-0123456789";
    const editToy2 = async () => {
      await ui.nav("Servers").click();
      await serverRow("toy2").getByRole("link", { name: "toy2" }).click();
      await ui.page.getByRole("button", { name: "Edit", exact: true }).click();
      return ui.page.getByRole("dialog", { name: "Edit toy2" });
    };
    let dialog = await editToy2();
    await dialog.getByRole("button", { name: "Add variable" }).click();
    await dialog.getByLabel("Variable 1", { exact: true }).fill("API_KEY");
    await dialog.getByLabel("Value 1", { exact: true }).fill(secret);
    await dialog.getByRole("switch", { name: "Secret" }).click();
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(savedEntries().toy2).toMatchObject({ env: { API_KEY: secret }, secret: ["API_KEY"] });

    // Opened again, the field holds only the mask; saving unchanged keeps the secret.
    dialog = await editToy2();
    const value = dialog.getByLabel("Value 1", { exact: true });
    expect(await value.inputValue()).toMatch(/^••••89$/);
    await dialog.getByText("Saved secret: type a new value to replace it.").waitFor();
    await dialog.getByLabel("Arguments", { exact: true }).fill(`${TOY_SERVER_JS}\n--quiet`);
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(savedEntries().toy2).toMatchObject({
      args: [TOY_SERVER_JS, "--quiet"],
      env: { API_KEY: secret },
    });

    // Typing a new value replaces it.
    dialog = await editToy2();
    await dialog.getByLabel("Value 1", { exact: true }).fill("sk-new");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(savedEntries().toy2).toMatchObject({ env: { API_KEY: "sk-new" } });
  });

  it("refuses a request whose Host header names another host (421)", async () => {
    expect((await rawGet(ui.daemon.port, "evil.example")).status).toBe(421);
    expect((await rawGet(ui.daemon.port, `evil.example:${ui.daemon.port}`)).status).toBe(421);
    // The same request with this address is served.
    expect((await rawGet(ui.daemon.port, `127.0.0.1:${ui.daemon.port}`)).status).toBe(200);
  });

  it("says the link was refused, and how to get one, when the page is opened with a wrong one", async () => {
    const stranger = await ui.browser.newPage({ viewport: { width: 1280, height: 860 } });
    try {
      await stranger.goto(`${ui.daemon.origin}/#ticket=${"0".repeat(64)}`);
      const alert = stranger.getByRole("alert").filter({ hasText: "Code Mode needs a new link" });
      await waitForText(
        alert,
        /used already or has expired[\s\S]*codemode ui open/,
        "the refused-link page",
      );
      await stranger.screenshot({
        path: path.join(ARTIFACTS_DIR, "12-refused-link-light.png"),
      });
    } finally {
      await stranger.close();
    }
    // The refusal hurt nothing: the daemon runs and the real page is still connected.
    expect(ui.daemon.alive(), ui.daemon.stderr()).toBe(true);
    // The page hears of the refusal before the host's write of it lands: wait for the entry.
    await waitUntil(
      () => Promise.resolve(auditEntries(home, "auth_refused").map((e) => e.reason)),
      (reasons) => reasons.includes("browser UI link not issued, used already, or expired"),
      "the auth_refused entry of the wrong link",
    );
    await waitForText(appStatus(), /^Ready$/, "the app status Ready");
  });
});
