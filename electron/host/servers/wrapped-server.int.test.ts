// WrappedServer against real subprocesses: the built toy server and, once, the
// published server-everything. Nothing here is mocked. Restarts after a crash are in
// wrapped-server-restart.int.test.ts.

import { textOf, until } from "../../../test-support/wait.js";
import { pidAlive } from "../util/process-place.js";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ServerStartError, WrappedServer } from "./wrapped-server.js";
import {
  TOY_TOOLS,
  callOpts,
  closeStarted,
  expectCode,
  readCallLog,
  recordingClock,
  toy,
  toyEntry,
  track,
} from "../../../test-support/wrapped-server-fixtures.js";
import { RESTART_BACKOFF_INITIAL_MS } from "./restart-backoff.js";

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "wrapped-server-test-"));
});

afterEach(closeStarted);

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe("WrappedServer with the toy server", () => {
  it("lists every tool, following nextCursor across pages, and reports starting then ready", async () => {
    const server = toy({ TOY_PAGE_SIZE: "5" });
    const statuses: string[] = [];
    const toolEvents: string[][] = [];
    server.on("status", (state) => statuses.push(state.status));
    server.on("tools", (tools) => toolEvents.push(tools.map((t) => t.name)));
    await server.start();
    expect(server.tools.map((t) => t.name)).toEqual(TOY_TOOLS);
    expect(statuses).toEqual(["starting", "ready"]);
    expect(toolEvents).toEqual([TOY_TOOLS]);
    expect(server.stderrTail[0]).toMatch(/^toy server: started/);
  });

  it("a call reaches the server and returns its structured result", async () => {
    const log = join(workDir, "calls-add.jsonl");
    const server = toy({ TOY_CALL_LOG: log });
    await server.start();
    const result = await server.callTool("add", { a: 2, b: 3 }, callOpts());
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(textOf(result)).toBe("5");
    expect(readCallLog(log)).toEqual([{ tool: "add", args: { a: 2, b: 3 } }]);
  });

  it("an error result of the server resolves as a result with isError, not a rejection", async () => {
    const server = toy();
    await server.start();
    const result = await server.callTool("fail", {}, callOpts());
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("toy failure");
  });

  it("the child sees the entry's env and the safe defaults, but not the host's other variables", async () => {
    process.env.CODEMODE_TEST_HOST_ONLY = "host secret";
    try {
      const server = toy({ TOY_GREETING: "hello from the entry" });
      await server.start();
      const env = async (name: string): Promise<string> =>
        textOf(await server.callTool("env", { name }, callOpts()));
      expect(await env("TOY_GREETING")).toBe("hello from the entry");
      expect(await env("CODEMODE_TEST_HOST_ONLY")).toBe("(unset)");
      expect(await env("PATH")).toBe(process.env.PATH);
    } finally {
      delete process.env.CODEMODE_TEST_HOST_ONLY;
    }
  });

  it("a slow call fails with a timeout error after the given timeout, and the server answers the next call", async () => {
    const server = toy();
    await server.start();
    const t0 = Date.now();
    const error = await expectCode(
      server.callTool("sleep", { ms: 10_000 }, callOpts(300)),
      "timeout",
    );
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(3_000);
    expect(error.message).toContain("300 ms");
    expect(server.status).toBe("ready");
    expect(textOf(await server.callTool("echo", { text: "still here" }, callOpts()))).toBe(
      "still here",
    );
  });

  it("aborting the signal cancels a call at once; an already aborted signal sends nothing", async () => {
    const log = join(workDir, "calls-abort.jsonl");
    const server = toy({ TOY_CALL_LOG: log });
    await server.start();

    const controller = new AbortController();
    const t0 = Date.now();
    const pending = server.callTool(
      "sleep",
      { ms: 10_000 },
      {
        signal: controller.signal,
        timeoutMs: 30_000,
      },
    );
    setTimeout(() => controller.abort(new Error("run ended")), 100);
    await expectCode(pending, "aborted");
    expect(Date.now() - t0).toBeLessThan(2_000);

    await expectCode(
      server.callTool("echo", { text: "never" }, { signal: controller.signal, timeoutMs: 5_000 }),
      "aborted",
    );
    expect(textOf(await server.callTool("echo", { text: "ok" }, callOpts()))).toBe("ok");
    expect(readCallLog(log).map((c) => c.tool)).toEqual(["sleep", "echo"]);
  });

  it("notifications/tools/list_changed makes it list again and emit the new tool, which is callable", async () => {
    const server = toy();
    await server.start();
    const changed = new Promise<string[]>((resolveTools) => {
      server.on("tools", (tools) => resolveTools(tools.map((t) => t.name)));
    });
    await server.callTool("add_tool", { name: "late_tool" }, callOpts());
    expect(await changed).toEqual([...TOY_TOOLS, "late_tool"]);
    expect(server.tools.map((t) => t.name)).toContain("late_tool");
    expect(textOf(await server.callTool("late_tool", {}, callOpts()))).toBe("late_tool called");
  });

  it("a first start that fails is reported with the last stderr lines and is not retried", async () => {
    const { clock, delays } = recordingClock();
    const server = toy({ TOY_FAIL_START: "1" }, { clock });
    const error = await server.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServerStartError);
    const startError = error as ServerStartError;
    expect(startError.server).toBe("toy");
    expect(startError.stderrTail).toEqual([
      "toy server: TOY_FAIL_START=1, giving up before connecting",
    ]);
    expect(startError.message).toContain('Server "toy" failed to start');
    expect(startError.message).toContain("TOY_FAIL_START=1, giving up");
    expect(server.info).toMatchObject({ status: "failed", restarting: false });
    expect(server.info.lastError).toBe(startError.message);
    await expectCode(server.callTool("echo", { text: "x" }, callOpts()), "not-ready");
    expect(delays).toEqual([]);
  });

  it("a command that does not exist fails to start with the spawn error", async () => {
    const server = track(
      new WrappedServer("missing", {
        ...toyEntry(),
        command: "/nonexistent/codemode-no-such-server",
      }),
    );
    await expect(server.start()).rejects.toThrow(/failed to start: .*ENOENT/);
    expect(server.status).toBe("failed");
  });

  it("a server that does not answer initialize in time fails to start and its child is killed", async () => {
    const server = toy({ TOY_START_DELAY_MS: "30000" }, { startTimeoutMs: 300 });
    const starting = server.start();
    await until(() => server.pid !== null, "the child to spawn", 10_000);
    const pid = server.pid!;
    await expect(starting).rejects.toThrow(/failed to start: .*timed out/i);
    // The toy server ignores stdin while it delays: this is the SIGTERM path of close.
    await until(() => !pidAlive(pid), "the child to be killed");
  });

  it("close during a start rejects that start as closed and kills the child", async () => {
    const server = toy({ TOY_START_DELAY_MS: "30000" });
    const starting = server.start();
    await until(() => server.pid !== null, "the child to spawn", 10_000);
    const pid = server.pid!;
    await server.close();
    await expectCode(starting, "closed");
    expect(server.status).toBe("stopped");
    await until(() => !pidAlive(pid), "the child to be killed");
  });

  it("close kills the child, refuses calls, and no restart follows", async () => {
    const { clock, delays } = recordingClock();
    const server = toy({}, { clock });
    await server.start();
    const pid = server.pid!;
    expect(pidAlive(pid)).toBe(true);
    // Checked from the start: the call fails while close() runs, and a rejection with no
    // handler attached yet is reported by vitest as unhandled.
    const inFlight = expectCode(
      server.callTool("sleep", { ms: 10_000 }, callOpts(30_000)),
      "connection-closed",
    );
    const t0 = Date.now();
    await server.close();
    expect(Date.now() - t0).toBeLessThan(1_500);
    await until(() => !pidAlive(pid), "the child to exit");
    await inFlight;
    expect(server.status).toBe("stopped");
    expect(server.pid).toBeNull();
    await expectCode(server.callTool("echo", { text: "x" }, callOpts()), "closed");
    await expectCode(server.start(), "closed");
    await new Promise((r) => setTimeout(r, RESTART_BACKOFF_INITIAL_MS + 200));
    expect(server.status).toBe("stopped");
    expect(delays).toEqual([]);
  });
});

describe("WrappedServer with the published server-everything", () => {
  it("lists its tools and calls echo", async () => {
    const require = createRequire(import.meta.url);
    const pkgJson = require.resolve("@modelcontextprotocol/server-everything/package.json");
    const pkg = JSON.parse(readFileSync(pkgJson, "utf8")) as { bin: Record<string, string> };
    const bin = pkg.bin["mcp-server-everything"];
    expect(bin).toBeDefined();
    const server = track(
      new WrappedServer("everything", {
        command: process.execPath,
        args: [resolve(dirname(pkgJson), bin!), "stdio"],
        env: {},
        secretEnv: [],
        allow: null,
        private: false,
      }),
    );
    await server.start();
    expect(server.tools.map((t) => t.name)).toContain("echo");
    const result = await server.callTool("echo", { message: "hello" }, callOpts());
    expect(textOf(result)).toBe("Echo: hello");
  });
});

describe("WrappedServer's client identity", () => {
  it("tells the server it is codemode at the version in package.json", async () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const mcp = new McpServer({ name: "probe", version: "1" });
    mcp.registerTool("noop", {}, () => ({ content: [] }));
    await mcp.connect(serverSide);
    const server = track(
      new WrappedServer("probe", toyEntry(), { transportFactory: () => clientSide }),
    );
    await server.start();
    expect(mcp.server.getClientVersion()).toEqual({ name: "codemode", version: pkg.version });
    await mcp.close();
  });
});
