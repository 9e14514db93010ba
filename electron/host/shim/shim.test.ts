import { afterEach, describe, expect, it } from "vitest";
import { mkdir, writeFile, chmod } from "node:fs/promises";
import net, { createConnection } from "node:net";
import path from "node:path";
import {
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
  SHIM_STOPPED_CODE,
} from "../ingress/local-access/local-access-constants.js";
import { socketLocationFor } from "../ingress/local-access/socket-path.js";
import { collect } from "../../../test-support/local-access.js";
import { until } from "../../../test-support/wait.js";
import { tokenPath } from "../ingress/local-access/token.js";
import { runShim } from "./shim.js";
import { STOPPED_MESSAGE } from "./shim-session.js";
import { tempDir } from "../../../test-support/temp-dir.js";
import {
  INITIALIZE,
  listen,
  echo,
  shimIO,
  text,
  cleanUpShimTests,
  impostor,
} from "../../../test-support/shim-fixture.js";

afterEach(cleanUpShimTests);

describe("runShim (in-process)", () => {
  it("round-trips bytes through an echoing host and exits 0 when the socket ends", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    const io = shimIO();
    const out = collect(io.stdout);
    const exit = runShim({ ...io, dataDir, env: {}, startApp: () => undefined });
    io.stdin.write(INITIALIZE);
    io.stdin.write(Buffer.from([0xe2, 0x82]));
    io.stdin.end(Buffer.from([0xac, 0x0a]));
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect((await out).toString("utf8")).toBe(INITIALIZE + "€\n");
  });

  it("reconnects when the host ends the connection while the client's stdin is still open", async () => {
    const dataDir = tempDir("cm-la-");
    let connections = 0;
    await listen(dataDir, (socket) => {
      connections++;
      if (connections === 1) socket.once("data", () => socket.end("bye\n"));
      else socket.pipe(socket);
    });
    const io = shimIO();
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    let stderr = "";
    io.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {} });
    io.stdin.write("hello\n");
    await until(
      () => connections === 2 && stderr.includes("reconnected"),
      "the shim to connect again",
    );
    io.stdin.end("again\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(out).toBe("bye\nagain\n");
  });

  it("passes on bytes the host sends right after OK, before the client says anything", async () => {
    const dataDir = tempDir("cm-la-");
    const hello = '{"jsonrpc":"2.0","method":"notifications/hello"}\n';
    await listen(dataDir, (socket) => {
      socket.write(hello);
      socket.pipe(socket);
    });
    const io = shimIO();
    let seen = "";
    io.stdout.on("data", (chunk: Buffer) => (seen += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {} });
    await until(() => seen === hello, "the host's first bytes");
    io.stdin.end("bye\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(seen).toBe(hello + "bye\n");
  });

  it("reconnects when the connection breaks instead of ending", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    const io = shimIO();
    let client: net.Socket | undefined;
    let connects = 0;
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    let stderr = "";
    io.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = runShim({
      ...io,
      dataDir,
      env: {},
      connect: (target) => {
        connects++;
        return (client = createConnection(target));
      },
    });
    io.stdin.write("hello\n");
    await until(() => out === "hello\n", "the echo");
    // What a host crash looks like from here on platforms that report it as a reset.
    client?.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    await until(
      () => connects === 2 && stderr.includes("reconnected"),
      "the shim to connect again",
    );
    io.stdin.end("again\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(out).toBe("hello\nagain\n");
    expect(stderr).toContain("lost the connection to Code Mode");
  });

  it("answers the requests the host left unanswered with a 'Code Mode stopped' error when it goes away", async () => {
    const dataDir = tempDir("cm-la-");
    // Answers request 1, swallows 2 and "b", then goes away; the next connection is quiet.
    let host: net.Socket | undefined;
    const listener = await listen(dataDir, (socket) => {
      if (host !== undefined) return;
      host = socket;
      socket.once("data", () => socket.write('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    });
    const io = shimIO();
    const exit = runShim({ ...io, dataDir, env: {}, reconnect: { giveUpMs: 200 } });
    io.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n',
    );
    io.stdin.write('{"jsonrpc":"2.0","id":"b","method":"tools/call"}\n');
    await until(() => host !== undefined && io.stdout.readableLength > 0, "the host's answer");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await listener.close();
    expect(await exit).toBe(SHIM_EXIT.failed);
    const lines = text(io.stdout)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    const message = STOPPED_MESSAGE;
    expect(message).toMatch(/^Code Mode stopped: it went away before answering/);
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: SHIM_STOPPED_CODE, message } },
      { jsonrpc: "2.0", id: "b", error: { code: SHIM_STOPPED_CODE, message } },
    ]);
    expect(text(io.stderr)).toContain("answered 2 request(s) in flight with an error");
  });

  it("refuses a host that cannot prove it knows the token, and exits 1", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    // A token that changed after the host read it: the host's proof no longer holds.
    await writeFile(tokenPath(dataDir), "f".repeat(64) + "\n", { mode: 0o600 });
    const io = shimIO();
    const exit = await runShim({ ...io, dataDir, env: {} });
    expect(exit).toBe(SHIM_EXIT.failed);
    expect(text(io.stderr)).toContain("could not prove it knows this install's token");
    expect(text(io.stdout)).toBe("");
  });

  it("prints the host's ERR on stderr and exits 1", async () => {
    const dataDir = tempDir("cm-la-");
    const socketPath = socketLocationFor(dataDir, {}).socketPath;
    await writeFile(tokenPath(dataDir), "a".repeat(64) + "\n", { mode: 0o600 });
    await impostor(socketPath, (socket) => socket.end("ERR bad token\n"));
    const io = shimIO();
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(text(io.stderr)).toContain("Code Mode refused the connection: bad token");
  });

  it("escapes a fake host's ERR reason: no raw ESC or BEL reaches the terminal", async () => {
    const dataDir = tempDir("cm-la-");
    const socketPath = socketLocationFor(dataDir, {}).socketPath;
    await writeFile(tokenPath(dataDir), "a".repeat(64) + "\n", { mode: 0o600 });
    // OSC 52 would write "pwned" to the clipboard of the terminal that shows the shim's stderr.
    await impostor(socketPath, (socket) => socket.end("ERR \u001b]52;c;cHduZWQ=\u0007 ok\n"));
    const io = shimIO();
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    const err = text(io.stderr);
    expect(err).toContain("Code Mode refused the connection: \\u001b]52;c;cHduZWQ=\\u0007 ok");
    expect(err).not.toContain("\u001b");
    expect(err).not.toContain("\u0007");
  });

  it("refuses to use a world-readable token file, saying how to fix it", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    await chmod(tokenPath(dataDir), 0o644);
    const io = shimIO();
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(text(io.stderr)).toContain("chmod 600");
  });

  it("with no host and a startApp that does nothing, answers initialize with a JSON-RPC error and exits 2", async () => {
    const dataDir = tempDir("cm-la-");
    const io = shimIO();
    let startCalls = 0;
    io.stdin.write(INITIALIZE);
    const exit = await runShim({
      ...io,
      dataDir,
      env: {},
      startApp: () => {
        startCalls++;
        return undefined;
      },
      timeoutMs: 300,
    });
    expect(exit).toBe(SHIM_EXIT.notRunning);
    expect(startCalls).toBe(1);
    const answer = JSON.parse(text(io.stdout)) as {
      jsonrpc: string;
      id: number;
      error: { code: number; message: string };
    };
    expect(answer.jsonrpc).toBe("2.0");
    expect(answer.id).toBe(7);
    expect(answer.error.code).toBe(SHIM_NOT_RUNNING_CODE);
    expect(answer.error.code).toBe(-32000);
    expect(answer.error.message).toContain("Code Mode is not running");
    expect(answer.error.message).toContain("Open the Code Mode app");
    expect(answer.error.message).toContain("npx codemode daemon");
    expect(text(io.stderr)).toContain("Code Mode is not running");
  });

  it("treats a stale socket file (nothing listening) as not running", async () => {
    const dataDir = tempDir("cm-la-");
    const listener = await listen(dataDir, echo);
    const socketPath = listener.socketPath ?? "";
    await listener.close();
    // A token and a dead socket file stay behind, as after a crash.
    await writeFile(tokenPath(dataDir), "a".repeat(64) + "\n", { mode: 0o600 });
    await mkdir(path.dirname(socketPath), { recursive: true });
    const { leaveStaleSocket } = await import("../../../test-support/local-access.js");
    await leaveStaleSocket(socketPath);
    const io = shimIO();
    io.stdin.write('{"jsonrpc":"2.0","id":"abc","method":"initialize"}\n');
    expect(
      await runShim({ ...io, dataDir, env: {}, startApp: () => undefined, timeoutMs: 200 }),
    ).toBe(SHIM_EXIT.notRunning);
    expect((JSON.parse(text(io.stdout)) as { id: string }).id).toBe("abc");
  });

  it("with no host and a first line that is not JSON, only explains on stderr and exits 2", async () => {
    const dataDir = tempDir("cm-la-");
    const io = shimIO();
    io.stdin.end("hello there\n");
    const exit = await runShim({
      ...io,
      dataDir,
      env: {},
      startApp: () => undefined,
      timeoutMs: 100,
    });
    expect(exit).toBe(SHIM_EXIT.notRunning);
    expect(text(io.stdout)).toBe("");
    expect(text(io.stderr)).toMatch(
      /Code Mode is not running\. Open the Code Mode app, or run `npx codemode daemon`/,
    );
  });

  it("does not wait forever for a first line that never comes", async () => {
    const dataDir = tempDir("cm-la-");
    const io = shimIO();
    const exit = await runShim({
      ...io,
      dataDir,
      env: {},
      startApp: () => undefined,
      timeoutMs: 50,
      firstLineWaitMs: 100,
    });
    expect(exit).toBe(SHIM_EXIT.notRunning);
    expect(text(io.stdout)).toBe("");
  });

  it("connects and works when startApp brings a host up 500 ms later", async () => {
    const dataDir = tempDir("cm-la-");
    const io = shimIO();
    let startedAt = 0;
    const out = collect(io.stdout);
    io.stdin.write(INITIALIZE);
    const exit = runShim({
      ...io,
      dataDir,
      env: {},
      startApp: () => {
        startedAt = Date.now();
        setTimeout(() => void listen(dataDir, echo), 500);
        return "a test host";
      },
    });
    await until(() => text(io.stderr).length > 0 || startedAt > 0, "startApp");
    io.stdin.end("second\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(500);
    expect((await out).toString()).toBe(INITIALIZE + "second\n");
  });
});
