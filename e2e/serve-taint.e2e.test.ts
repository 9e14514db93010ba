// The private-data rule of `codemode serve`, end to end. Taint lives in the serve process,
// so each case that taints gets a serve process of its own.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  assertServeBuilt,
  callLog,
  runJson,
  sandboxContainers,
  startServe,
  tempHome,
  toyEntry,
  TOY_COMMAND,
  writeConfig,
  type ServeOptions,
} from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";
import type { McpSession } from "../test-support/mcp-session.js";

const fx = await dockerOrSkip();

// Last of all, after every block has closed its serve processes.
afterAll(removeTempDirs);

type Outcomes = Record<string, string>;

const refusedFor = (tool: string, privateTool: string): string =>
  `ToolError: "${tool}" refused: this client called the private tool "${privateTool}", so only ` +
  "private tools can be called; only the user can change that, in Code Mode.";

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true):
// every test here starts `codemode serve`, which needs the engine and the sandbox image.
describe.skipIf(!fx)("codemode serve: private tools taint the client", () => {
  // All serve processes of this file share one data directory, so one label check covers them.
  const { home } = tempHome();
  const open = new Set<McpSession>();

  const serve = async (options: Omit<ServeOptions, "home">): Promise<McpSession> => {
    const session = await startServe({ ...options, home });
    open.add(session);
    return session;
  };
  const close = async (session: McpSession): Promise<void> => {
    open.delete(session);
    await session.close();
  };

  beforeAll(() => {
    assertToyServerBuilt();
    assertServeBuilt();
  });

  afterEach(async () => {
    // A failed test must not leave its serve process behind.
    await Promise.all([...open].map(close));
  });

  afterAll(async () => {
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
  });

  describe("one serve process with --private read_secret", () => {
    // Shared by the two tests below, in order: the second one checks what the first left.
    const log = callLog();
    let session: McpSession;

    beforeAll(async () => {
      session = await startServe({
        home,
        args: ["--private", "read_secret", "--env", "TOY_CALL_LOG", "--", ...TOY_COMMAND],
        env: { TOY_CALL_LOG: log.file },
      });
    });

    afterAll(async () => {
      await session?.close();
    });

    it("only private tools after a private call", async () => {
      expect(await session.description()).toContain("[private]");
      const { value } = await runJson<Outcomes>(
        session,
        `print(json.dumps({
    "before": await attempt(echo({"text": "before"})),
    "secret": await attempt(read_secret()),
    "send": await attempt(send({"to": "someone", "body": "the secret is 42"})),
    "echo": await attempt(echo({"text": "after"})),
    "secret_again": await attempt(read_secret()),
}))`,
      );
      expect(value).toEqual({
        before: "ok: before",
        secret: "ok: the secret is 42",
        send: refusedFor("send", "read_secret"),
        echo: refusedFor("echo", "read_secret"),
        secret_again: "ok: the secret is 42",
      });
      // Nothing refused reached the server.
      expect(log.calls().map((c) => c.tool)).toEqual(["echo", "read_secret", "read_secret"]);
    });

    it("the taint lasts for the process: a later run of the same serve process is still tainted", async () => {
      // What the first run printed is in the model's context; the next run can be written
      // from it, so the rule cannot be per run.
      const { value } = await runJson<Outcomes>(
        session,
        `print(json.dumps({
    "echo": await attempt(echo({"text": "later"})),
    "send": await attempt(send({"to": "someone", "body": "42"})),
    "secret": await attempt(read_secret()),
}))`,
      );
      expect(value).toEqual({
        echo: refusedFor("echo", "read_secret"),
        send: refusedFor("send", "read_secret"),
        secret: "ok: the secret is 42",
      });
      expect(log.calls().map((c) => c.tool)).toEqual([
        "echo",
        "read_secret",
        "read_secret",
        "read_secret",
      ]);
    });
  });

  it("the taint is the process's, not the install's: a new serve process starts clean", async () => {
    const session = await serve({ args: ["--private", "read_secret", "--", ...TOY_COMMAND] });
    const { value } = await runJson<Outcomes>(
      session,
      `print(json.dumps({"echo": await attempt(echo({"text": "new process"}))}))`,
    );
    expect(value.echo).toBe("ok: new process");
  });

  it("the taint lasts for the process and across servers (private on one server refuses another)", async () => {
    const logA = callLog();
    const logB = callLog();
    const config = writeConfig({
      a: toyEntry({ TOY_CALL_LOG: logA.file }, { private: ["read_secret"] }),
      b: toyEntry({ TOY_CALL_LOG: logB.file }),
    });
    const session = await serve({ args: ["--config", config] });

    const first = await runJson<Outcomes>(
      session,
      `print(json.dumps({
    "b_before": await attempt(b__echo({"text": "before"})),
    "secret": await attempt(a__read_secret()),
    "b_echo": await attempt(b__echo({"text": "the secret is 42"})),
    "b_send": await attempt(b__send({"to": "x", "body": "the secret is 42"})),
    "a_echo": await attempt(a__echo({"text": "same server, not private"})),
}))`,
    );
    expect(first.value).toEqual({
      b_before: "ok: before",
      secret: "ok: the secret is 42",
      b_echo: refusedFor("b__echo", "a__read_secret"),
      b_send: refusedFor("b__send", "a__read_secret"),
      a_echo: refusedFor("a__echo", "a__read_secret"),
    });

    const later = await runJson<Outcomes>(
      session,
      `print(json.dumps({"b_echo": await attempt(b__echo({"text": "later"}))}))`,
    );
    expect(later.value.b_echo).toBe(refusedFor("b__echo", "a__read_secret"));

    expect(logA.calls().map((c) => c.tool)).toEqual(["read_secret"]);
    expect(logB.calls()).toEqual([{ tool: "echo", args: { text: "before" } }]);
  });

  it("a refused private call does not taint", async () => {
    const log = callLog();
    const session = await serve({
      args: [
        "--private",
        "send",
        "--max-calls",
        "5",
        "--env",
        "TOY_CALL_LOG",
        "--",
        ...TOY_COMMAND,
      ],
      env: { TOY_CALL_LOG: log.file },
    });
    const first = await runJson<Outcomes>(
      session,
      `print(json.dumps({
    "missing": await attempt(send({"to": "x"})),
    "undeclared": await attempt(send({"to": "x", "body": "y", "cc": "z"})),
    "not_an_object": await attempt(forged_raw("send", '"to x"')),
    "echo": await attempt(echo({"text": "still free"})),
    "fifth": await attempt(echo({"text": "fifth"})),
    "over_budget": await attempt(send({"to": "x", "body": "y"})),
}))`,
    );
    expect(first.value.missing).toMatch(/^ToolError: Arguments of "send" do not match its schema/);
    expect(first.value.undeclared).toMatch(/do not match its schema/);
    expect(first.value.not_an_object).toMatch(/must be a dict \(a JSON object\), not str/);
    expect(first.value.echo).toBe("ok: still free");
    expect(first.value.fifth).toBe("ok: fifth");
    // Refused for the budget, before it went out: no taint either.
    expect(first.value.over_budget).toMatch(/"send" refused: this run has used its budget of 5/);

    const later = await runJson<Outcomes>(
      session,
      `print(json.dumps({"echo": await attempt(echo({"text": "next run"}))}))`,
    );
    expect(later.value.echo).toBe("ok: next run");
    expect(log.calls().map((c) => c.tool)).toEqual(["echo", "echo", "echo"]);
  });

  it("a failed private call still taints (the tool answers with an error)", async () => {
    const session = await serve({ args: ["--private", "fail", "--", ...TOY_COMMAND] });
    const { value } = await runJson<Outcomes>(
      session,
      `print(json.dumps({
    "fail": await attempt(fail()),
    "echo": await attempt(echo({"text": "after"})),
}))`,
    );
    expect(value.fail).toBe('ToolError: "fail" returned an error: toy failure');
    expect(value.echo).toBe(refusedFor("echo", "fail"));
  });

  it("a failed private call still taints (the server crashes mid-call)", async () => {
    const log = callLog();
    const session = await serve({
      args: ["--private", "crash", "--env", "TOY_CALL_LOG", "--", ...TOY_COMMAND],
      env: { TOY_CALL_LOG: log.file },
    });
    const { value, result } = await runJson<Outcomes>(
      session,
      `print(json.dumps({
    "crash": await attempt(crash()),
    "echo": await attempt(echo({"text": "after"})),
}))`,
    );
    // The call went out and the server died under it: a host fault, shown by type only
    // (not the server's last stderr lines).
    expect(value.crash).toBe('ToolError: "crash" failed on the host side (WrappedServerError).');
    expect(JSON.stringify(result)).not.toContain("crash requested");
    expect(value.echo).toBe(refusedFor("echo", "crash"));

    const later = await runJson<Outcomes>(
      session,
      `print(json.dumps({"echo": await attempt(echo({"text": "later"}))}))`,
    );
    expect(later.value.echo).toBe(refusedFor("echo", "crash"));
    expect(log.calls().map((c) => c.tool)).toEqual(["crash"]);
  });
});
