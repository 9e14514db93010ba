// "Ask first" end to end: a real `codemode daemon --ui`, real Docker runs, the toy server's
// echo marked ask-first in servers.json, an SDK client over the shim, and Chromium showing the
// approval panel. Allow and deny both reach the code, an unanswered call is denied after the
// setting's time or, sooner, before the run's deadline, a run that ends takes its card with
// it, a client that supports elicitation answers itself, and the audit log (and its page,
// filtered by kind) records each request and who answered.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APPROVAL_LIMITS } from "../shared/limits.js";
import { auditEntries, connectShim, toyServer, writeServers } from "../test-support/daemon.js";
import { waitForText, waitForTexts, waitUntil } from "../test-support/browser.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { useUiPage } from "../test-support/ui-page.js";
import { connectWsApi, type WsApi } from "../test-support/ws-api.js";

const fx = await dockerOrSkip();

const CLIENT = "ask-e2e";
const TRY_ECHO = [
  "try:",
  '    print(await toy__echo({"text": "hello"}))',
  "except ToolError as error:",
  '    print("denied:", error)',
].join("\n");

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(fx === null)("ask first (browser UI, real runs)", () => {
  const ui = useUiPage({
    homePrefix: "codemode-ui-ask-",
    docker: fx?.docker,
    context: { viewport: { width: 1280, height: 900 } },
    prepare: (home) => {
      writeServers(home, { toy: toyServer({ ask: ["echo"] }) });
      // Long enough for a loaded machine to click; the timeout test lowers it.
      writeFileSync(
        path.join(home, "settings.json"),
        JSON.stringify({ approvalTimeoutSeconds: 60 }),
      );
    },
  });
  const { home } = ui;
  let shim: McpSession;
  let ws: WsApi;

  const panel = (): Locator =>
    ui.page.getByRole("region", { name: "Calls waiting for your answer" });
  const answered = () => auditEntries(home, "approval_answered");

  beforeAll(async () => {
    ws = await connectWsApi(ui.daemon.port, { ticket: await ui.daemon.ticket() });
    shim = await connectShim(home, { name: CLIENT, version: "1" });
  });

  afterAll(async () => {
    ws?.close();
    await shim?.close().catch(() => undefined);
  });

  it("an ask-first call waits, the panel shows it, and 'Allow once' lets it through", async () => {
    const run = shim.run(TRY_ECHO);
    // Awaited below; a failure before that must not also surface as an unhandled rejection.
    run.catch(() => undefined);
    const item = panel().getByRole("listitem");
    await waitForText(item, /ask-e2e wants to call echo on toy/, "the question in the panel");
    // The arguments pretty-printed; the code folded until opened.
    await waitForText(item.locator(".approval-args pre"), /"text": "hello"/, "the arguments");
    await expect(item.locator(".approval-code pre").isVisible()).resolves.toBe(false);
    await item.getByText("Code of the run").click();
    await waitForText(item.locator(".approval-code pre"), /toy__echo/, "the run's code");
    await item.getByRole("button", { name: "Allow once" }).click();
    const result = await run;
    expect(result).toMatchObject({ stdout: "hello\n", error: null, calls: 1 });
    await waitUntil(
      () => panel().count(),
      (n) => n === 0,
      "the panel gone",
    );
    expect(answered().at(-1)).toMatchObject({
      answer: "allow_once",
      by: "browser",
      client: CLIENT,
    });
  });

  it("'Deny' reaches the code as ToolError('the user denied this call')", async () => {
    const run = shim.run(TRY_ECHO);
    // Awaited below; a failure before that must not also surface as an unhandled rejection.
    run.catch(() => undefined);
    const item = panel().getByRole("listitem");
    await waitForText(item, /wants to call echo/, "the question");
    await item.getByRole("button", { name: "Deny" }).click();
    const result = await run;
    expect(result.stdout).toBe("denied: the user denied this call\n");
    expect(answered().at(-1)).toMatchObject({ answer: "deny", by: "browser" });
    const calls = auditEntries(home, "call");
    expect(calls.at(-1)).toMatchObject({ tool: "toy__echo", decision: "refused" });
  });

  it("'Allow for this run' asks once per run", async () => {
    const twice = `${TRY_ECHO}\n${TRY_ECHO}`;
    const run = shim.run(twice);
    // Awaited below; a failure before that must not also surface as an unhandled rejection.
    run.catch(() => undefined);
    const item = panel().getByRole("listitem");
    await waitForText(item, /wants to call echo/, "the question");
    await item.getByRole("button", { name: "Allow for this run" }).click();
    const result = await run;
    expect(result.stdout).toBe("hello\nhello\n");
    expect(answered().at(-1)).toMatchObject({ answer: "allow_run", by: "browser" });
  });

  it("an unanswered call is denied after the setting's time", async () => {
    await ws.request("settings.save", { approvalTimeoutSeconds: 2 });
    try {
      const before = answered().length;
      const started = Date.now();
      const result = await shim.run(TRY_ECHO);
      expect(result.stdout).toMatch(
        /^denied: the call waited [23] s for the user's answer and was not answered, so it was not sent\n$/,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(answered().slice(before)).toEqual([
        expect.objectContaining({ answer: "timeout", by: null }),
      ]);
    } finally {
      await ws.request("settings.save", { approvalTimeoutSeconds: 60 });
    }
  });

  it("a question never outlasts its run: it closes before the deadline and the code hears it waited", async () => {
    // The setting's 60 s would outlast a run of 8 s: the question gets the run's time instead,
    // less the margin the code needs to hear that nobody answered.
    const run = shim.run(TRY_ECHO, { timeout_s: 8 });
    run.catch(() => undefined);
    const item = panel().getByRole("listitem");
    const note = item.getByText(/Denied in \d+ s unless you answer/);
    await waitForText(
      note,
      /the run it belongs to reaches its deadline then/,
      "the run's deadline",
    );
    const left = Number(/Denied in (\d+) s/.exec(await note.innerText())?.[1]);
    expect(left).toBeLessThanOrEqual(8 - APPROVAL_LIMITS.runDeadlineMarginMs / 1000);
    // Nobody answers: the card leaves, and the code (not the deadline) ends the run, saying why.
    const result = await run;
    expect(result.stopped).toBeNull();
    expect(result.stdout).toMatch(
      /^denied: the call waited \d+ s for the user's answer and was not answered before the run's deadline, so it was not sent\. /,
    );
    await waitUntil(
      () => panel().count(),
      (n) => n === 0,
      "the panel gone",
    );
    expect(answered().at(-1)).toMatchObject({ answer: "timeout", by: null });
  });

  it("the card ends when its run ends, and the model reads that the call waited unanswered", async () => {
    // The client gives up on the run (as a person pressing Esc in their client would) while
    // the card is up: the run is cancelled and the card leaves the page.
    const cancel = new AbortController();
    const given = shim.client.callTool(
      { name: "run_python", arguments: { code: TRY_ECHO } },
      undefined,
      { signal: cancel.signal, timeout: 120_000 },
    );
    given.catch(() => undefined);
    const item = panel().getByRole("listitem");
    await waitForText(item, /wants to call echo/, "the question");
    cancel.abort();
    await waitUntil(
      () => panel().count(),
      (n) => n === 0,
      "the panel gone with its run",
    );
    await waitUntil(
      () => Promise.resolve(answered().at(-1)),
      (entry) => entry?.answer === "cancelled",
      "the question withdrawn, on record",
    );
    expect(await ws.request("approvals.list", {})).toEqual([]);

    // A run stopped for another reason (here, too much output) while a call waits: its error
    // says the call waited for the user and was not answered. toy__add returns only after the
    // echo's question is up (the host reads the calls in order).
    const flood = [
      "import asyncio",
      "async def flood():",
      '    await toy__add({"a": 1, "b": 2})',
      "    while True:",
      '        print("x" * 4096)',
      'await asyncio.gather(toy__echo({"text": "hello"}), flood())',
    ].join("\n");
    const reply = await shim.callTool("run_python", { code: flood });
    expect(reply.isError).toBe(true);
    const text = (reply.content as { type: string; text?: string }[])[0]?.text ?? "";
    expect(text).toContain(
      "[error]\nthe run was stopped after writing more than 1048576 bytes of output\n" +
        "a call to toy__echo waited for the user's answer and was not answered when the run " +
        "ended, so it was not sent\n",
    );
    expect(answered().at(-1)).toMatchObject({ tool: "toy__echo", answer: "cancelled" });
    await waitUntil(
      () => panel().count(),
      (n) => n === 0,
      "no card left",
    );
  });

  it("a client that supports elicitation is asked too and its answer wins", async () => {
    const asking = await connectShim(
      home,
      { name: "eliciting-client", version: "1" },
      { capabilities: { elicitation: {} } },
    );
    const questions: string[] = [];
    asking.client.setRequestHandler(ElicitRequestSchema, (request) => {
      questions.push(request.params.message);
      return { action: "accept", content: { answer: "allow_once" } };
    });
    try {
      const result = await asking.run(TRY_ECHO);
      expect(result.stdout).toBe("hello\n");
      expect(questions).toHaveLength(1);
      expect(questions[0]).toContain("wants to call echo on toy");
      expect(questions[0]).toContain('"text": "hello"');
      const requested = auditEntries(home, "approval_requested").at(-1);
      expect(requested).toMatchObject({ client: "eliciting-client", elicited: true });
      expect(answered().at(-1)).toMatchObject({
        client: "eliciting-client",
        answer: "allow_once",
        by: "client",
      });
      // A client that declines denies.
      asking.client.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
      const declined = await asking.run(TRY_ECHO);
      expect(declined.stdout).toBe("denied: the user denied this call\n");
      expect(answered().at(-1)).toMatchObject({ answer: "deny", by: "client" });
    } finally {
      await asking.close();
    }
  });

  it("the Audit page filters by the answers", async () => {
    await ui.page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Audit log" })
      .click();
    await ui.page.getByLabel("Kind").selectOption({ label: "Your answer" });
    const list = ui.page.getByRole("listbox", { name: "Audit entries" });
    // The filter applies a moment after the choice: until then the list shows every kind, and
    // the answers waited for below may be among its rows. Only answers, once it applies.
    await waitForTexts(
      list.getByRole("option"),
      (rows) => rows.length >= 6 && rows.every((row) => row.includes("Your answer")),
      "only answers listed",
    );
    await waitForText(list, /Allowed once in the browser/, "the browser's allow");
    await waitForText(list, /Denied: nobody answered in time/, "the timeout");
    await waitForText(list, /Allowed once in the client/, "the client's allow");
  });
  it("the Servers page sets ask first per tool and for the whole server", async () => {
    const saved = (): unknown =>
      (
        JSON.parse(readFileSync(path.join(home, "servers.json"), "utf8")) as {
          mcpServers: Record<string, { ask?: unknown }>;
        }
      ).mcpServers.toy?.ask;
    await ui.page.goto(`${ui.daemon.origin}/#/servers?name=toy`);
    const tools = ui.page.getByRole("list", { name: "Tools of toy" });
    const tool = (name: string): Locator =>
      tools
        .getByRole("listitem")
        .filter({ has: ui.page.getByRole("heading", { name, exact: true }) });
    await tool("echo").getByRole("switch", { name: "Ask first", checked: true }).waitFor();
    await tool("add").getByRole("switch", { name: "Ask first" }).click();
    await tool("add")
      .getByRole("switch", { name: "Ask first", checked: true, disabled: false })
      .waitFor();
    await waitUntil(
      () => Promise.resolve(saved()),
      (ask) => JSON.stringify(ask) === '["echo","add"]',
      "add asks first",
    );
    await ui.page.getByRole("button", { name: "Ask first for every tool" }).click();
    await waitUntil(
      () => Promise.resolve(saved()),
      (ask) => ask === true,
      "every tool asks first",
    );
    await tool("sleep").getByRole("switch", { name: "Ask first", checked: true }).waitFor();
    await ui.page.getByRole("button", { name: "Stop asking for every tool" }).click();
    await waitUntil(
      () => Promise.resolve(saved()),
      (ask) => ask === undefined,
      "no tool asks first",
    );
    await tool("echo").getByRole("switch", { name: "Ask first", checked: false }).waitFor();
  });
});
