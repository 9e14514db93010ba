// WrappedServer's recovery, against the real toy server: a crash restarts it with backoff,
// a call meanwhile waits for the restart within its own timeout, and restart() starts over.
// Only the clock is wrapped, to record the delays asked for (the timers themselves are real).

import { textOf, until } from "../../../test-support/wait.js";
import { pidAlive } from "../util/process-place.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TransportFactory } from "./wrapped-server.js";
import {
  callOpts,
  closeStarted,
  expectCode,
  readCallLog,
  recordingClock,
  stateWhere,
  toy,
} from "../../../test-support/wrapped-server-fixtures.js";
import { RESTART_BACKOFF_INITIAL_MS } from "./restart-backoff.js";
import { RESTART_WAIT_RESERVE_MS } from "./restart-wait.js";
import { ToolChangedError } from "../core/ports/tool-caller.js";

let workDir: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "wrapped-server-restart-test-"));
});

afterEach(closeStarted);

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

describe("WrappedServer restarts after a crash", () => {
  it("a crash mid-call is reported, a call meanwhile waits for the restart and goes out", async () => {
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
    expect(delays).toEqual([RESTART_BACKOFF_INITIAL_MS]);
    expect(readCallLog(log).map((c) => c.tool)).toEqual(["crash", "echo"]);
    expect(server.pid).not.toBe(firstPid);
    expect(pidAlive(firstPid!)).toBe(false);
  });

  it("a call that waited for a restart is not sent once its tool changed with the restart", async () => {
    const log = join(workDir, `restart-changed-${Date.now()}.jsonl`);
    const server = toy({ TOY_CALL_LOG: log });
    await server.start();
    await expectCode(server.callTool("crash", {}, callOpts()), "connection-closed");
    await stateWhere(server, (s) => s.status === "failed");
    // The caller (the bridge) finds the tool held for review or redefined once it is back.
    let asked = 0;
    const changed = server.callTool(
      "echo",
      { text: "x" },
      {
        ...callOpts(),
        stillGoes: () => {
          asked += 1;
          return false;
        },
      },
    );
    await expect(changed).rejects.toBeInstanceOf(ToolChangedError);
    expect(asked).toBe(1);
    expect(readCallLog(log).map((c) => c.tool)).toEqual(["crash"]);
    // Unchanged, the next call goes out as before.
    const echoed = await server.callTool(
      "echo",
      { text: "y" },
      { ...callOpts(), stillGoes: () => true },
    );
    expect(textOf(echoed)).toBe("y");
  });

  it("a call to a server that stays down fails at its timeout, with the server's last error", async () => {
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
    expect(waited).toBeGreaterThanOrEqual(1_400 - RESTART_WAIT_RESERVE_MS);
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
    await until(() => !pidAlive(secondPid), "the replaced child to exit");
    expect(textOf(await server.callTool("echo", { text: "new" }, callOpts()))).toBe("new");
  });
});
