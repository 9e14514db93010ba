// The typed API on real servers: our shop server (enums, optional and nested parameters, a tool
// and parameters whose names are not identifiers, an output schema, a result that breaks it, an
// image, an error) and the published server-everything (structuredContent with an outputSchema,
// an image). First the engine behind serve and the app, in process, on each runtime; then the
// app as a client meets it: a real `codemode daemon`, the shim under the SDK's Client, and the
// audit log, where a run the check ended reads so, with its messages and no call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BridgeEvent } from "../electron/host/core/bridge/bridge-events.js";
import { TaintRegistry } from "../electron/host/core/bridge/taint.js";
import { CodeModeEngine } from "../electron/host/core/engine/code-mode-engine.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { ServerSet } from "../electron/host/servers/server-set.js";
import type { ServersConfig } from "../electron/host/core/ports/server-config-types.js";
import type { RunResult } from "../shared/run-result.js";
import { SHOP_SERVER_JS } from "../test-servers/shop-server.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  connectShim,
  makeHome,
  runCli,
  startDaemon,
  writeServers,
  type DaemonProcess,
} from "../test-support/daemon.js";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { callLog, EVERYTHING_BIN } from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";
import { descriptionNames, unresolvedNamesCode } from "../test-support/description-names.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

afterAll(removeTempDirs);

const SHOP = { command: process.execPath, args: [SHOP_SERVER_JS] };
const EVERYTHING = { command: process.execPath, args: [EVERYTHING_BIN, "stdio"] };

/** What a model writes against the typed API, every result read as a value. */
const WORKING = `
r = await shop.add_item(name="tea", qty=2, size="L", gift={"wrap": True, "message": "hi"})
print("total", r["total"], r["items"])
print(await shop.list_items())
print(await shop.find_item(**{"item name": "mug"}, from_="top"))
text, image = await shop.label(order=7)
print(text, image.kind, image.mime)
show(image, name="label")
w = await everything.get_structured_content(location="Chicago")
print("weather", type(w).__name__, w["temperature"], w["conditions"])
tiny = await everything.get_tiny_image()
print([str(part) if not isinstance(part, str) else "text" for part in tiny])
for call in (shop.stock(), shop.checkout(), shop.add_item(name="x", qty=0)):
    try:
        await call
    except ToolError as e:
        print(e.reason, "|", e)
print(await shop__add_item({"name": "cup", "qty": 1}))
`;

const WORKING_OUTPUT = [
  "total 7 1",
  "[{'name': 'tea', 'qty': 2, 'size': 'L'}]",
  "found mug from top",
  "label for order 7 image image/png",
  "weather dict 36 Light rain / drizzle",
  "['text', '<image image/png, 4033 bytes>', 'text']",
  'server_error | shop.stock(): its result does not match its output schema: left: expected integer, got "lots"',
  "server_error | shop.checkout(): the server answered with an error: card declined",
  "invalid | shop.add_item(): qty: must be >= 1, got 0",
  '{"total":10,"items":2}',
  "",
];

/** The same job with the four mistakes models make: each caught before anything runs. */
const MISTAKES = `print("not printed")
await shop.add_item(name="tea", qty=2)
await shop.add_itme(name="tea", qty=2)
await shop.add_item(title="tea", qty=2)
await shop.add_item(name="tea", qty="2")
await everything.get_structured_content()
await everything.get_structured_content(location="Paris")`;

function expectMistakes(result: RunResult): void {
  expect(result).toMatchObject({ stdout: "", calls: 0, stopped: "check", exit_code: 1 });
  expect(result.exception?.type).toBe("ToolCheckError");
  const error = result.error ?? "";
  for (const said of [
    "ToolCheckError: 6 mistakes found before the code ran (nothing ran, no call made):",
    "line 3, column 7: shop.add_itme(name=\"tea\", qty=2)\n    shop has no tool 'add_itme'. Did you mean: shop.add_item?",
    "    unexpected keyword argument 'title'; its parameters: name, qty, size, gift\n    missing required argument 'name'",
    '    qty: expected integer, got "2"',
    "line 6, column 7: everything.get_structured_content()\n    missing required argument 'location'",
    '    location: expected one of "New York", "Chicago", "Los Angeles", got "Paris"',
    '    async def shop.add_item(*, name: str, qty: int, size: Literal["S", "M", "L"] | None = None, gift: dict{wrap: bool, message: str (optional)} | None = None) -> dict{total: float, items: int}',
  ]) {
    expect(error).toContain(said);
  }
}

function config(extra: Record<string, string> = {}): ServersConfig {
  const entry = (server: typeof SHOP, env: Record<string, string> = {}) => ({
    command: server.command,
    args: [...server.args],
    env,
    secretEnv: [],
    allow: null,
    private: false as const,
  });
  return {
    servers: new Map([
      ["shop", entry(SHOP, extra)],
      ["everything", entry(EVERYTHING)],
    ]),
  };
}

describeEachRuntime(docker, "the typed API on real servers, in process (%s)", (runtime) => {
  const log = callLog();
  let servers: ServerSet;
  let sandbox: Sandbox;
  let engine: CodeModeEngine;
  const events: BridgeEvent[] = [];

  beforeAll(async () => {
    assertHostBuilt();
    servers = new ServerSet(config({ SHOP_CALL_LOG: log.file }));
    await servers.open();
    sandbox = new Sandbox({ engine: fx!.engine, image: fx!.image, owner: testOwner(), runtime });
    engine = new CodeModeEngine({
      servers,
      sandbox,
      taint: new TaintRegistry(),
      events: { emit: (event) => events.push(event) },
      prefixWithServer: true,
    });
  });

  afterAll(async () => {
    engine?.close();
    await Promise.allSettled([sandbox?.close(), servers?.close()]);
    await until(
      async () => (await leftoverContainers(fx!.docker)).length === 0,
      "the sandbox's containers to be removed",
    );
  });

  it("calls them with keyword arguments and reads each result as a value", async () => {
    const result = await engine.run({ code: WORKING }, { client: "typed" });
    expect(result.error).toBeNull();
    expect(result.stdout.split("\n")).toEqual(WORKING_OUTPUT);
    expect(result.images.map((i) => i.name)).toEqual(["label.png"]);
    // What reached the server is what the bridge let through, by the server's own names.
    expect(log.calls().find((c) => c.tool === "find-item")?.args).toEqual({
      "item name": "mug",
      from: "top",
    });
  });

  it("ends a run with mistakes before its first statement: nothing reaches any server", async () => {
    const before = log.calls().length;
    const calls = events.length;
    expectMistakes(await engine.run({ code: MISTAKES }, { client: "typed" }));
    expect(log.calls().length).toBe(before);
    expect(events.length).toBe(calls);
  });
});

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("the typed API through the shim, and the audit log", () => {
  const home = makeHome("codemode-typed-");
  const log = callLog();
  let daemon: DaemonProcess;
  let shim: McpSession;

  beforeAll(async () => {
    assertHostBuilt();
    writeServers(home, {
      shop: { ...SHOP, env: { SHOP_CALL_LOG: log.file } },
      everything: EVERYTHING,
    });
    daemon = await startDaemon(home);
    shim = await connectShim(home, { name: "typed-e2e", version: "1" });
  });

  afterAll(async () => {
    await shim?.close().catch(() => undefined);
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts(fx?.docker);
    }
  });

  it("teaches the namespaced form and runs it", async () => {
    const description = await shim.description();
    // Its examples call real tools: the first that takes arguments, the next beside it.
    expect(description).toContain('r = await shop.add_item(name="...", qty=1)');
    expect(description).toContain('shop__add_item({"name": "...", "qty": 1}) works too');
    const names = descriptionNames(description);
    expect(names.awaited.length).toBeGreaterThan(0);
    const resolved = await shim.run(unresolvedNamesCode(names));
    expect(resolved.stdout).toBe("[]\n");
    expect(resolved.calls).toBe(0);
    expect(description).toContain("- shop (7 tools): add_item, list_items, find_item, label,");
    const result = await shim.run(WORKING);
    expect(result.error).toBeNull();
    expect(result.stdout.split("\n")).toEqual(WORKING_OUTPUT);
  });

  it("a run the check ended is marked an error, and logged so, with its messages and no call", async () => {
    const before = log.calls().length;
    const raw = await shim.callTool("run_python", { code: MISTAKES });
    expect(raw.isError).toBe(true);
    const text = (raw.content as { type: string; text?: string }[])[0]?.text ?? "";
    expect(text).toMatch(/^\[error\]\nToolCheckError: 6 mistakes found before the code ran/);
    const result = await shim.run(MISTAKES);
    expectMistakes(result);
    expect(log.calls().length).toBe(before);

    const finished = auditEntries(home, "run_finished", "typed-e2e").at(-1);
    expect(finished).toMatchObject({
      stopped: "check",
      calls: 0,
      errorType: "ToolCheckError",
      exitCode: 1,
    });
    expect(finished?.error).toContain("shop has no tool 'add_itme'. Did you mean: shop.add_item?");
    const runId = finished?.runId;
    expect(auditEntries(home, "call").filter((c) => c.runId === runId)).toEqual([]);
    expect(auditEntries(home, "run_started").some((s) => s.runId === runId)).toBe(true);
    // The log with such a run in it verifies, and the CLI's summary names the stop.
    expect((await runCli(home, ["audit", "verify"])).code).toBe(0);
    const listed = await runCli(home, ["audit", "tail", "-n", "20", "--no-follow"]);
    expect(listed.stdout).toContain(`run ${runId ?? ""} check in`);
  });
});
