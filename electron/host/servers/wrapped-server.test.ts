// WrappedServer against real subprocesses: the built toy server and, once, the
// published server-everything. Nothing here is mocked; only the clock is wrapped to
// record the backoff delays the server asks for (the timers themselves are real).

import { textOf, until } from "../../../test-support/wait.js";
import { pidAlive } from "../local-access/instance-lock.js";
import { mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../../../test-support/toy-build.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import type { ServerEntry } from "./server-config-types.js";
import {
  ServerStartError,
  StderrTail,
  WrappedServer,
  WrappedServerError,
  restartDelayMs,
  systemClock,
  type Clock,
  type ServerState,
  type TransportFactory,
  type WrappedServerOptions,
} from "./wrapped-server.js";

const TOY_TOOLS = [
  "add",
  "echo",
  "sleep",
  "big",
  "fail",
  "crash",
  "env",
  "read_secret",
  "send",
  "get-weather",
  "deep",
  "add_tool",
];

let workDir: string;
const started: WrappedServer[] = [];

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "wrapped-server-test-"));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

function toyEntry(env: Record<string, string> = {}): ServerEntry {
  return {
    command: process.execPath,
    args: [TOY_SERVER_UNIT_JS],
    env,
    secretEnv: [],
    allow: null,
    private: false,
  };
}

function track(server: WrappedServer): WrappedServer {
  started.push(server);
  return server;
}

function toy(env: Record<string, string> = {}, options: WrappedServerOptions = {}): WrappedServer {
  return track(new WrappedServer("toy", toyEntry(env), options));
}

function noSignal(): AbortSignal {
  return new AbortController().signal;
}

function callOpts(timeoutMs = 5_000): { signal: AbortSignal; timeoutMs: number } {
  return { signal: noSignal(), timeoutMs };
}

/** Resolves with the first state (current or coming) that matches. */
function stateWhere(
  server: WrappedServer,
  match: (state: ServerState) => boolean,
  timeoutMs = 10_000,
): Promise<ServerState> {
  if (match(server.info)) return Promise.resolve(server.info);
  return new Promise((resolveState, rejectState) => {
    const timer = setTimeout(() => {
      off();
      rejectState(new Error(`no matching status within ${timeoutMs} ms (now ${server.status})`));
    }, timeoutMs);
    const off = server.on("status", (state) => {
      if (!match(state)) return;
      clearTimeout(timer);
      off();
      resolveState(state);
    });
  });
}

function readCallLog(file: string): { tool: string; args: unknown }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { tool: string; args: unknown });
}

/** Real timers; records every delay asked for, and lets a test jump "now" forward. */
function recordingClock(): { clock: Clock; delays: number[]; advance: (ms: number) => void } {
  const delays: number[] = [];
  let offset = 0;
  return {
    delays,
    advance: (ms) => {
      offset += ms;
    },
    clock: {
      now: () => systemClock.now() + offset,
      setTimer(fn, ms) {
        delays.push(ms);
        return systemClock.setTimer(fn, ms);
      },
    },
  };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<WrappedServerError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a rejection with code ${code}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrappedServerError);
  expect((error as WrappedServerError).code).toBe(code);
  return error as WrappedServerError;
}

describe("restart backoff and stderr tail (pure)", () => {
  // Inputs chosen here: the default values are pinned in shared/limits.test.ts.
  it("doubles the restart delay from the initial one up to the cap", () => {
    const backoff = { initialMs: 500, maxMs: 30_000, resetAfterMs: 60_000 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 100].map((n) => restartDelayMs(n, backoff))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
  });

  it("keeps only the last lines of stderr, cut to the line limit, across chunk borders", () => {
    const tail = new StderrTail(3, 10);
    tail.write("one\ntw");
    tail.write(Buffer.from("o\r\nthree\nfour\n"));
    expect(tail.snapshot()).toEqual(["two", "three", "four"]);
    tail.write("x".repeat(50));
    expect(tail.snapshot()).toEqual(["three", "four", `${"x".repeat(10)}…`]);
    tail.write("x\nlast");
    expect(tail.snapshot()).toEqual(["four", `${"x".repeat(10)}…`, "last"]);
  });
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

  it("a crash mid-call is reported, a call meanwhile waits for the restart and goes out (issue 14 §4)", async () => {
    const { clock, delays } = recordingClock();
    const log = join(workDir, `restart-wait-${Date.now()}.jsonl`);
    const server = toy({ TOY_CALL_LOG: log }, { clock });
    await server.start();
    const firstPid = server.pid;
    expect(firstPid).not.toBeNull();

    await expectCode(server.callTool("crash", {}, callOpts()), "connection-closed");
    const failed = await stateWhere(server, (s) => s.status === "failed");
    expect(failed.restarting).toBe(true);
    expect(failed.lastError).toContain("exited unexpectedly");
    expect(failed.lastError).toContain("toy server: crash requested");

    // Before: refused at once ("restarting after a failure; try again shortly").
    const echoed = await server.callTool("echo", { text: "after the restart" }, callOpts());
    expect(textOf(echoed)).toBe("after the restart");
    expect(server.info).toMatchObject({ status: "ready", restartCount: 1 });
    expect(delays).toEqual([SERVER_LIMITS.restartBackoffInitialMs]);
    expect(readCallLog(log).map((c) => c.tool)).toEqual(["crash", "echo"]);
    expect(server.pid).not.toBe(firstPid);
    expect(pidAlive(firstPid!)).toBe(false);
  });

  it("a call to a server that stays down fails at its timeout, with the server's last error (issue 14 §4)", async () => {
    const down = join(workDir, `stays-down-${Date.now()}`);
    const server = toy({ TOY_FAIL_START_IF: down }, { backoff: { initialMs: 50, maxMs: 200 } });
    await server.start();
    writeFileSync(down, "");
    await expectCode(server.callTool("crash", {}, callOpts()), "connection-closed");
    await stateWhere(server, (s) => s.status === "failed");

    const t0 = Date.now();
    const error = await expectCode(
      server.callTool("echo", { text: "x" }, callOpts(1_500)),
      "restarting",
    );
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(1_400 - SERVER_LIMITS.restartWaitReserveMs);
    expect(waited).toBeLessThan(5_000);
    expect(error.message).toContain('Server "toy" did not come back within 1500 ms');
    expect(error.message).toContain("TOY_FAIL_START_IF names a file that exists");

    // Back once it can start: the next call waits for that and goes out.
    rmSync(down);
    const echoed = await server.callTool("echo", { text: "up" }, callOpts(10_000));
    expect(textOf(echoed)).toBe("up");
  });

  it("a server that stays down fails the call with its last error even when the caller times the call too (as the bridge does)", async () => {
    const down = join(workDir, `stays-down-timed-${Date.now()}`);
    const server = toy({ TOY_FAIL_START_IF: down }, { backoff: { initialMs: 50, maxMs: 200 } });
    await server.start();
    writeFileSync(down, "");
    await expectCode(server.callTool("crash", {}, callOpts()), "connection-closed");
    await stateWhere(server, (s) => s.status === "failed");

    // The bridge starts its own timer of the call's timeout just before the call: before the
    // fix it always fired first, so the call ended as "aborted" (a bare timeout in the log).
    const timeoutMs = 1_500;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("The tool call timed out.", "TimeoutError")),
      timeoutMs,
    );
    try {
      const error = await expectCode(
        server.callTool("echo", { text: "x" }, { signal: controller.signal, timeoutMs }),
        "restarting",
      );
      expect(error.message).toContain("TOY_FAIL_START_IF names a file that exists");
    } finally {
      clearTimeout(timer);
    }
  });

  it("a call waiting for a restart is given up when its caller cancels", async () => {
    const down = join(workDir, `cancel-wait-${Date.now()}`);
    const server = toy({ TOY_FAIL_START_IF: down }, { backoff: { initialMs: 50, maxMs: 200 } });
    await server.start();
    writeFileSync(down, "");
    await expectCode(server.callTool("crash", {}, callOpts()), "connection-closed");
    await stateWhere(server, (s) => s.status === "failed");
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 200);
    const t0 = Date.now();
    await expectCode(
      server.callTool("echo", { text: "x" }, { signal: cancel.signal, timeoutMs: 10_000 }),
      "aborted",
    );
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("repeated crashes double the delay up to the cap, and staying up long enough resets it", async () => {
    const { clock, delays, advance } = recordingClock();
    const server = toy({}, { clock, backoff: { initialMs: 50, maxMs: 150, resetAfterMs: 5_000 } });
    await server.start();
    const crashAndRecover = async (): Promise<void> => {
      await server.callTool("crash", {}, callOpts()).catch(() => undefined);
      await stateWhere(server, (s) => s.status === "failed");
      await stateWhere(server, (s) => s.status === "ready");
    };
    await crashAndRecover();
    await crashAndRecover();
    await crashAndRecover();
    expect(delays).toEqual([50, 100, 150]);
    advance(5_000);
    await crashAndRecover();
    expect(delays).toEqual([50, 100, 150, 50]);
  });

  it("a restart attempt that fails schedules the next one with a longer delay until one succeeds", async () => {
    const { clock, delays } = recordingClock();
    // Real StdioClientTransports; launches 2 and 3 get TOY_FAIL_START so those restarts fail.
    let launches = 0;
    const transportFactory: TransportFactory = (params) => {
      launches++;
      const failThisOne = launches === 2 || launches === 3;
      return new StdioClientTransport({
        ...params,
        env: failThisOne ? { ...params.env, TOY_FAIL_START: "1" } : params.env,
      });
    };
    const server = toy({}, { clock, transportFactory, backoff: { initialMs: 50, maxMs: 1_000 } });
    const errors: string[] = [];
    server.on("status", (s) => {
      if (s.status === "failed" && s.lastError) errors.push(s.lastError);
    });
    await server.start();
    await server.callTool("crash", {}, callOpts()).catch(() => undefined);
    await stateWhere(server, (s) => s.status === "ready" && s.restartCount === 3);
    expect(delays).toEqual([50, 100, 200]);
    expect(errors).toHaveLength(3);
    expect(errors[1]).toContain("failed to start");
    expect(errors[1]).toContain("TOY_FAIL_START=1");
    expect(launches).toBe(4);
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
    await until(() => !pidAlive(pid), "the child to be killed", 5_000);
  });

  it("close during a start rejects that start as closed and kills the child", async () => {
    const server = toy({ TOY_START_DELAY_MS: "30000" });
    const starting = server.start();
    await until(() => server.pid !== null, "the child to spawn", 10_000);
    const pid = server.pid!;
    await server.close();
    await expectCode(starting, "closed");
    expect(server.status).toBe("stopped");
    await until(() => !pidAlive(pid), "the child to be killed", 5_000);
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
    await until(() => !pidAlive(pid), "the child to exit", 2_000);
    await inFlight;
    expect(server.status).toBe("stopped");
    expect(server.pid).toBeNull();
    await expectCode(server.callTool("echo", { text: "x" }, callOpts()), "closed");
    await expectCode(server.start(), "closed");
    await new Promise((r) => setTimeout(r, SERVER_LIMITS.restartBackoffInitialMs + 200));
    expect(server.status).toBe("stopped");
    expect(delays).toEqual([]);
  });

  it("restart() replaces the process with a new one and forgets past restarts", async () => {
    const server = toy();
    await server.start();
    const firstPid = server.pid!;
    await server.callTool("crash", {}, callOpts()).catch(() => undefined);
    await stateWhere(server, (s) => s.status === "ready" && s.restartCount === 1);
    const secondPid = server.pid!;
    await server.restart();
    expect(server.info).toMatchObject({ status: "ready", restartCount: 0, restarting: false });
    expect(server.pid).not.toBe(secondPid);
    expect(pidAlive(firstPid)).toBe(false);
    await until(() => !pidAlive(secondPid), "the replaced child to exit", 5_000);
    expect(textOf(await server.callTool("echo", { text: "new" }, callOpts()))).toBe("new");
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
    const server = new WrappedServer("probe", toyEntry(), { transportFactory: () => clientSide });
    started.push(server);
    await server.start();
    expect(mcp.server.getClientVersion()).toEqual({ name: "codemode", version: pkg.version });
    await mcp.close();
  });
});
