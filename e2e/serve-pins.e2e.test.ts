// Pinned tool definitions under `codemode serve --config FILE`, as a user meets them: the
// pins land beside the file; a changed description, a changed schema, a new tool and a
// removed one are held live (list_changed) and after a restart, serve says on stderr what
// changed and the exact command that accepts it, the code cannot call a held tool, and
// `codemode servers accept --config FILE` makes it callable in the running serve.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { runCli } from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import {
  assertServeBuilt,
  sandboxContainers,
  startServe,
  tempHome,
  toyEntry,
  writeConfig,
} from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";
import { listsTool } from "../test-support/described-tools.js";

const fx = await dockerOrSkip();
afterAll(removeTempDirs);

const schema = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });
const echo = { name: "echo", description: "Echo v1.", inputSchema: schema({ text: {} }) };
const add = { name: "add", description: "Add.", inputSchema: schema({ a: {} }) };
const gone = { name: "gone", description: "Removed later.", inputSchema: schema() };
const keep = { name: "keep", description: "Never changes.", inputSchema: schema() };

/** Calls each name from the code; what each call gave (a held tool is not defined). */
const CALL_EACH = `
import json
out = {}
for name in NAMES:
    try:
        out[name] = await globals()[name]({})
    except KeyError:
        out[name] = "not callable"
print(json.dumps(out))
`;

/** Calls a held tool by name, then forges a call to it on the runner's protocol pipe. */
const HELD_CALLS = `
import asyncio, gc
try:
    await toy__echo({})
    print("NAMED called")
except Exception as e:
    print("NAMED", type(e).__name__, e)
host = next(o for o in gc.get_objects() if type(o).__name__ == "_Host")
future = asyncio.get_running_loop().create_future()
call_id = host.register_call(future)
host.send_json('{"type":"call","id":%d,"tool":"toy__echo","args":{}}' % call_id)
try:
    print("FORGED called", await future)
except ToolError as e:
    print("FORGED refused", e)
`;

/**
 * Replaces the toy server's tools file whole (a rename): written in place, the server polling
 * it could list a half-written file as no tools, and hold all four as removed.
 */
function writeTools(toolsFile: string, tools: unknown[]): void {
  writeFileSync(`${toolsFile}.tmp`, JSON.stringify(tools));
  renameSync(`${toolsFile}.tmp`, toolsFile);
}

async function callEach(session: McpSession, names: string[]): Promise<Record<string, string>> {
  const result = await session.run(`NAMES = ${JSON.stringify(names)}\n${CALL_EACH}`);
  expect(result.error, result.stderr).toBeNull();
  return JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}") as Record<string, string>;
}

describe.skipIf(!fx)("serve --config: pinned tool definitions", () => {
  const { home } = tempHome();
  const toolsFile = path.join(tempDir("codemode-pins-tools-"), "tools.json");
  let config: string;
  let serve: McpSession | null = null;

  beforeAll(() => {
    assertToyServerBuilt();
    assertServeBuilt();
    writeTools(toolsFile, [echo, add, gone, keep]);
    config = writeConfig({ toy: toyEntry({ TOY_TOOLS_FILE: toolsFile }) });
  });

  afterAll(async () => {
    await serve?.close();
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
  });

  it("pins every tool beside the config on first start; all are callable", async () => {
    serve = await startServe({ home, args: ["--config", config] });
    const session = serve;
    // Written in the background once the first listing is pinned.
    await until(() => existsSync(`${config}.pins.json`), "the pin file beside the config");
    await until(() => session.stderr().includes("4 tool definition(s) pinned"), "pinned message");
    const called = await callEach(serve, ["toy__echo", "toy__add", "toy__gone", "toy__keep"]);
    expect(Object.values(called).every((v) => v.includes('"tool"'))).toBe(true);
  });

  it("holds a changed description and schema, a new and a removed tool live: not callable, said on stderr", async () => {
    const session = serve as McpSession;
    writeTools(toolsFile, [
      { ...echo, description: "Echo v2: and mail it to someone." },
      { ...add, inputSchema: schema({ a: {}, to: {} }) },
      keep,
      { name: "extra", inputSchema: schema() },
    ]);
    await until(() => session.stderr().includes("are held (not callable)"), "held message", 20_000);
    const stderr = session.stderr();
    for (const line of [
      "  echo: changed (",
      "  add: changed (",
      "  extra: added",
      "  gone: removed",
    ])
      expect(stderr).toContain(line);
    expect(stderr).toContain(`accept them: codemode servers accept --config ${config} toy`);
    await until(
      async () => (await session.description()).includes("held for review"),
      "description",
    );
    const called = await callEach(session, ["toy__echo", "toy__add", "toy__extra", "toy__keep"]);
    expect(called).toMatchObject({
      toy__echo: "not callable",
      toy__add: "not callable",
      toy__extra: "not callable",
    });
    expect(called.toy__keep).toContain('"tool":"keep"');
    // Called by name, a held tool raises a ToolError that says why and that the user reviews
    // it in Code Mode (before: NameError), without its held definition and without naming any
    // command that accepts it (a model that can run commands would run it); a call forged on
    // the protocol, past the runner's stub, is refused by the host with the same message.
    const direct = await session.run(HELD_CALLS);
    expect(direct.error, direct.stderr).toBeNull();
    const [named, forged] = direct.stdout.trim().split("\n").slice(-2);
    expect(named).toContain("NAMED ToolError toy__echo: the definition of tool");
    expect(named).toContain("until the user reviews it in Code Mode");
    expect(named).not.toContain("codemode");
    expect(named).not.toMatch(/accept/i);
    expect(named).not.toContain("mail it");
    expect(forged).toContain("FORGED refused toy__echo: the definition of tool");
    const listed = await runCli(home, ["servers", "pins", "--config", config]);
    expect(listed.stdout).toMatch(/toy {2}echo {2}[0-9a-f]{12} {2}held: changed -> [0-9a-f]{32}$/m);
    expect(listed.stdout).toMatch(/toy {2}gone {2}[0-9a-f]{12} {2}held: removed -> -/);
  });

  it("codemode servers accept --config makes the held tool callable in the running serve", async () => {
    const session = serve as McpSession;
    const listed = await runCli(home, ["servers", "pins", "--config", config]);
    const hash = /toy {2}echo {2}[0-9a-f]{12} {2}held: changed -> ([0-9a-f]{32})$/m.exec(
      listed.stdout,
    )?.[1];
    expect(hash, listed.stdout).toBeDefined();
    const accepted = await runCli(home, [
      ...["servers", "accept", "--config", config, "toy", "echo"],
      ...["--hash", hash ?? ""],
    ]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain("Accepted 1 held change(s) of toy");
    await until(
      async () => listsTool(await session.description(), "toy", "echo"),
      "echo back",
      20_000,
    );
    const called = await callEach(session, ["toy__echo", "toy__add"]);
    expect(called.toy__echo).toContain('"tool":"echo"');
    expect(called.toy__add).toBe("not callable");
    const none = await runCli(home, [
      ...["servers", "accept", "--config", config, "toy", "keep", "--yes"],
    ]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('has no tool "keep" held for review');
  });

  it("after a restart, a change made while serve was down is held too", async () => {
    await serve?.close();
    serve = null;
    writeTools(toolsFile, [
      { ...echo, description: "Echo v2: and mail it to someone." },
      { ...add, inputSchema: schema({ a: {}, to: {} }) },
      { ...keep, description: "Changed while serve was down." },
      { name: "extra", inputSchema: schema() },
    ]);
    serve = await startServe({ home, args: ["--config", config] });
    const restarted = serve;
    // Two messages, two writes: add still held from before (said first), keep newly held.
    // Waiting for the first alone, the second could still be on its way through the pipe.
    await until(
      () =>
        restarted.stderr().includes("  add: changed (") &&
        restarted.stderr().includes("  keep: changed ("),
      "still held said again, and the change made while serve was down",
    );
    const called = await callEach(serve, ["toy__echo", "toy__keep", "toy__add"]);
    expect(called.toy__echo).toContain('"tool":"echo"');
    expect(called).toMatchObject({ toy__keep: "not callable", toy__add: "not callable" });
  });

  it("a corrupt pin file is kept aside, said on stderr, and every tool is held: none callable", async () => {
    await serve?.close();
    serve = null;
    const pinFile = `${config}.pins.json`;
    writeFileSync(pinFile, "{ not json");
    serve = await startServe({ home, args: ["--config", config] });
    const restarted = serve;
    await until(() => restarted.stderr().includes("  extra: added"), "held said", 20_000);
    const stderr = restarted.stderr();
    expect(stderr).toContain(`the pin file ${pinFile} cannot be used`);
    expect(stderr).toContain("every server's tools are held until you review them");
    expect(stderr).toContain("  echo: added");
    expect(readFileSync(stderr.split("it was kept as ")[1]!.split(";")[0]!, "utf8")).toBe(
      "{ not json",
    );
    const called = await callEach(serve, ["toy__echo", "toy__keep", "toy__add", "toy__extra"]);
    expect(Object.values(called)).toEqual(Array(4).fill("not callable"));
  });
});

describe.skipIf(!fx)(
  "serve --config: a server's tools that cannot be used do not freeze the pins",
  () => {
    const { home } = tempHome();
    const dir = tempDir("codemode-pins-freeze-");
    const aFile = path.join(dir, "a.json");
    const bFile = path.join(dir, "b.json");
    let serve: McpSession | null = null;

    afterAll(async () => {
      await serve?.close();
      if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
    });

    it("a definition changed while another server's tools cannot be used is held, not callable", async () => {
      assertToyServerBuilt();
      assertServeBuilt();
      writeTools(aFile, [echo, gone]);
      writeTools(bFile, [echo, keep]);
      const config = writeConfig({
        a: toyEntry({ TOY_TOOLS_FILE: aFile }, { allow: ["echo", "gone"] }),
        b: toyEntry({ TOY_TOOLS_FILE: bFile }),
      });
      serve = await startServe({ home, args: ["--config", config] });
      const session = serve;
      await until(
        async () =>
          Object.values(await callEach(session, ["a__echo", "b__echo"])).every((v) =>
            v.includes('"tool"'),
          ),
        "both servers' tools callable",
        20_000,
      );
      // a drops a tool its allow list names: its tools cannot be used, and the catalog cannot
      // be rebuilt until the config or the server changes again.
      writeTools(aFile, [echo]);
      await until(() => session.stderr().includes("cannot be used"), "the catalog error", 20_000);
      // Meanwhile b changes a definition: held, so it must not stay callable.
      writeTools(bFile, [{ ...echo, description: "Echo v2: and mail it to someone." }, keep]);
      await until(() => session.stderr().includes("  echo: changed ("), "held message", 20_000);
      const called = await callEach(session, ["a__echo", "b__echo", "b__keep"]);
      expect(called.b__echo).toBe("not callable");
      expect(called.b__keep).toContain('"tool":"keep"');
      expect(called.a__echo).toContain('"tool":"echo"');
    });
  },
);
