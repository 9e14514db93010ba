// The shim keeps its client's session when the app goes away: real sockets and
// the real handshake, with small MCP hosts that answer lines as an app would.
import { afterEach, describe, expect, it } from "vitest";
import net from "node:net";
import path from "node:path";
import { SHIM_EXIT, SHIM_STOPPED_CODE } from "../ingress/local-access/local-access-constants.js";
import { until } from "../../../test-support/wait.js";
import { tempDir } from "../../../test-support/temp-dir.js";
import {
  INITIALIZE,
  cleanUpShimTests,
  listen,
  servers,
  shimIO,
} from "../../../test-support/shim-fixture.js";
import { runShim, SHIM_APP_RESTARTS_MAX } from "./shim.js";
import { RECONNECT_LIMITS, STOPPED_MESSAGE } from "./shim-session.js";

afterEach(cleanUpShimTests);

const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}\n';
const request = (id: number | string, method: string): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method }) + "\n";

/**
 * A host as the app is to the shim: answers `initialize` with its own name, answers every
 * other request but "slow" with `{ host, method }`, and records the lines it got.
 */
function fakeHost(name: string): {
  lines: string[];
  sockets: net.Socket[];
  onConnection: (socket: net.Socket) => void;
} {
  const lines: string[] = [];
  const sockets: net.Socket[] = [];
  return {
    lines,
    sockets,
    onConnection: (socket) => {
      sockets.push(socket);
      // The listener allows half-open sockets: a client that ends gets its end, as from the app.
      socket.on("end", () => socket.end());
      let buffered = "";
      socket.on("data", (chunk: Buffer) => {
        buffered += chunk.toString("utf8");
        for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
          const line = buffered.slice(0, end);
          buffered = buffered.slice(end + 1);
          lines.push(line);
          const message = JSON.parse(line) as { id?: number | string; method?: string };
          if (message.id === undefined || message.method === "slow") continue;
          const result =
            message.method === "initialize" ? { serverInfo: { name } } : { host: name, ...message };
          socket.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n");
        }
      });
    },
  };
}

function outLines(stdout: string): unknown[] {
  return stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as unknown);
}

/** Everything a stream wrote so far, without consuming it (text() reads it away). */
function record(stream: NodeJS.ReadableStream): () => string {
  let all = "";
  stream.on("data", (chunk: Buffer) => (all += chunk.toString()));
  return () => all;
}

function lastAnswer(stdout: string): { id?: unknown; error?: { message?: string } } {
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as { error?: { message?: string } };
}

describe("the shim when the app goes away mid-session", () => {
  it("answers the request in flight, reconnects, replays initialize (its answer kept back) and initialized, and the session goes on", async () => {
    const dataDir = tempDir("cm-re-");
    const first = fakeHost("first");
    const listener = await listen(dataDir, first.onConnection);
    const io = shimIO();
    const err = record(io.stderr);
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, startApp: () => undefined });
    io.stdin.write(INITIALIZE + INITIALIZED + request(1, "tools/list") + request(2, "slow"));
    await until(() => first.lines.length === 4, "the first host to have all four lines");
    await listener.close();
    await until(() => out.includes(STOPPED_MESSAGE), "the error for the request in flight");
    // Sent while there is no app: it waits for the next one, with half a line besides.
    io.stdin.write(request(3, "tools/list") + '{"jsonrpc":"2.0","id":4,');
    const second = fakeHost("second");
    await listen(dataDir, second.onConnection);
    await until(() => second.lines.length >= 3, "the second host to hear the session");
    io.stdin.write('"method":"ping"}\n');
    await until(() => out.includes('"id":4,"result"'), "the answer to the line cut in two");
    expect(second.lines).toEqual([
      INITIALIZE.trim(),
      INITIALIZED.trim(),
      request(3, "tools/list").trim(),
      request(4, "ping").trim(),
    ]);
    io.stdin.end();
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(outLines(out)).toEqual([
      { jsonrpc: "2.0", id: 7, result: { serverInfo: { name: "first" } } },
      {
        jsonrpc: "2.0",
        id: 1,
        result: { host: "first", jsonrpc: "2.0", id: 1, method: "tools/list" },
      },
      { jsonrpc: "2.0", id: 2, error: { code: SHIM_STOPPED_CODE, message: STOPPED_MESSAGE } },
      {
        jsonrpc: "2.0",
        id: 3,
        result: { host: "second", jsonrpc: "2.0", id: 3, method: "tools/list" },
      },
      { jsonrpc: "2.0", id: 4, result: { host: "second", jsonrpc: "2.0", id: 4, method: "ping" } },
    ]);
    expect(STOPPED_MESSAGE).toContain("may or may not have run");
    expect(err()).toContain(
      "codemode shim: Code Mode stopped: it closed the connection; answered 1 request(s) in flight with an error",
    );
    expect(err()).toContain("reconnected to Code Mode; the session goes on");
  });

  it("ends a host line cut short before its own answers, so the client can read them", async () => {
    const dataDir = tempDir("cm-re-");
    const listener = await listen(dataDir, (socket) => {
      socket.once("data", () => socket.write('{"jsonrpc":"2.0","method":"notifications/mess'));
    });
    const io = shimIO();
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, reconnect: { giveUpMs: 100 } });
    io.stdin.write(request(1, "slow"));
    await until(() => out.length > 0, "the torn line");
    await listener.close();
    expect(await exit).toBe(SHIM_EXIT.failed);
    const lines = out.split("\n");
    expect(lines[0]).toBe('{"jsonrpc":"2.0","method":"notifications/mess');
    expect(JSON.parse(lines[1]!)).toMatchObject({ id: 1, error: { code: SHIM_STOPPED_CODE } });
  });

  it(`holds a request sent while the app is away for at most the wait, answers it, and never sends it`, async () => {
    const dataDir = tempDir("cm-re-");
    const listener = await listen(dataDir, fakeHost("first").onConnection);
    const io = shimIO();
    const err = record(io.stderr);
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, reconnect: { requestWaitMs: 150 } });
    io.stdin.write(INITIALIZE + INITIALIZED);
    await until(() => out.includes('"id":7'), "the answer to initialize");
    await listener.close();
    await until(() => err().includes("reconnecting"), "the shim to notice");
    const sentAt = Date.now();
    io.stdin.write(request(5, "tools/call"));
    await until(() => out.includes('"id":5'), "the answer to the waiting request");
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(140);
    const waited = lastAnswer(out);
    expect(waited).toMatchObject({ id: 5, error: { code: SHIM_STOPPED_CODE } });
    expect(waited.error?.message).toContain("not back yet");
    const second = fakeHost("second");
    await listen(dataDir, second.onConnection);
    await until(() => second.lines.length === 2, "the replay");
    io.stdin.end(request(6, "ping"));
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect(second.lines).toEqual([
      INITIALIZE.trim(),
      INITIALIZED.trim(),
      request(6, "ping").trim(),
    ]);
  });

  it("answers each request still waiting when the client ends its input while the app is away", async () => {
    const dataDir = tempDir("cm-re-");
    const listener = await listen(dataDir, fakeHost("first").onConnection);
    const io = shimIO();
    const err = record(io.stderr);
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {} });
    io.stdin.write(INITIALIZE);
    await until(() => out.includes('"id":7'), "the answer to initialize");
    await listener.close();
    await until(() => err().includes("reconnecting"), "the shim to notice");
    // Two requests and a notification wait for the app; then the client leaves.
    io.stdin.end(request(9, "tools/list") + INITIALIZED + request("a", "ping"));
    // The app stopped and never came back: the shim's exit says so, as when it gives up.
    expect(await exit).toBe(SHIM_EXIT.failed);
    const answers = outLines(out).slice(1) as {
      id: unknown;
      error: { code: number; message: string };
    }[];
    expect(answers.map((a) => [a.id, a.error.code])).toEqual([
      [9, SHIM_STOPPED_CODE],
      ["a", SHIM_STOPPED_CODE],
    ]);
    expect(answers[0]!.error.message).toContain("not back yet");
  });

  it("gives up after its limit: answers what waits and exits 1", async () => {
    const dataDir = tempDir("cm-re-");
    const listener = await listen(dataDir, fakeHost("first").onConnection);
    const io = shimIO();
    const err = record(io.stderr);
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, reconnect: { giveUpMs: 400 } });
    io.stdin.write(INITIALIZE);
    await until(() => out.includes('"id":7'), "the answer to initialize");
    await listener.close();
    io.stdin.write(request(8, "tools/list"));
    expect(await exit).toBe(SHIM_EXIT.failed);
    const answer = lastAnswer(out);
    expect(answer).toMatchObject({ id: 8, error: { code: SHIM_STOPPED_CODE } });
    expect(answer.error?.message).toContain("gave up reconnecting");
    expect(err()).toContain("Code Mode did not come back within");
  });

  it("starts the app again when it was the shim that started it, and not when it was not", async () => {
    const dataDir = tempDir("cm-re-");
    const io = shimIO();
    const err = record(io.stderr);
    let starts = 0;
    let listener: Awaited<ReturnType<typeof listen>> | undefined;
    const startApp = (): string => {
      starts++;
      void listen(dataDir, fakeHost(`start ${starts}`).onConnection).then((l) => (listener = l));
      return "a test app";
    };
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, startApp });
    io.stdin.write(INITIALIZE);
    await until(() => out.includes('"start 1"'), "the app the shim started");
    await listener!.close();
    io.stdin.write(request(9, "tools/list"));
    await until(() => out.includes('"host":"start 2"'), "the app started again");
    expect(err()).toContain("starting Code Mode again (a test app; 1 of at most");
    io.stdin.end();
    expect(await exit).toBe(SHIM_EXIT.ok);

    // Someone else's app: the shim waits for it and starts nothing.
    const other = tempDir("cm-re-");
    const theirs = await listen(other, fakeHost("theirs").onConnection);
    const io2 = shimIO();
    let calls = 0;
    const exit2 = runShim({
      ...io2,
      dataDir: other,
      env: {},
      startApp: () => {
        calls++;
        return "nothing";
      },
      reconnect: { giveUpMs: 300 },
    });
    io2.stdin.write(INITIALIZE);
    await until(() => io2.stdout.readableLength > 0, "their app's answer");
    await theirs.close();
    expect(await exit2).toBe(SHIM_EXIT.failed);
    expect(calls).toBe(0);
  });

  it(`starts the app it started again at most ${SHIM_APP_RESTARTS_MAX} times`, async () => {
    const dataDir = tempDir("cm-re-");
    const io = shimIO();
    let starts = 0;
    let listener: Awaited<ReturnType<typeof listen>> | undefined;
    const startApp = (): string => {
      starts++;
      void listen(dataDir, fakeHost(`start ${starts}`).onConnection).then((l) => (listener = l));
      return "a test app";
    };
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({ ...io, dataDir, env: {}, startApp, reconnect: { giveUpMs: 1_000 } });
    io.stdin.write(INITIALIZE);
    await until(() => out.includes('"start 1"'), "the app the shim started");
    for (let restart = 1; restart <= SHIM_APP_RESTARTS_MAX; restart++) {
      const closing = listener!;
      listener = undefined;
      await closing.close();
      io.stdin.write(request(restart, "tools/list"));
      await until(() => out.includes(`"host":"start ${restart + 1}"`), `restart ${restart}`);
    }
    await listener!.close();
    expect(await exit).toBe(SHIM_EXIT.failed);
    expect(starts).toBe(1 + SHIM_APP_RESTARTS_MAX);
  });

  it("tries again after a connection that breaks during the handshake (a dying app's), and goes on", async () => {
    const dataDir = tempDir("cm-re-");
    const host = fakeHost("host");
    await listen(dataDir, host.onConnection);
    // Accepts, then drops at once: what a listener being torn down can do to a queued connection.
    const dropper = net.createServer((socket) => socket.destroy());
    const dropperPath = path.join(tempDir("cm-re-drop-"), "drop.sock");
    await new Promise<void>((resolve) => dropper.listen(dropperPath, resolve));
    servers.push(dropper);
    let connects = 0;
    const io = shimIO();
    const err = record(io.stderr);
    let out = "";
    io.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const exit = runShim({
      ...io,
      dataDir,
      env: {},
      connect: (target) => {
        connects++;
        const socket = net.createConnection(connects === 2 ? dropperPath : target);
        // The first connection breaks once the session is under way.
        if (connects === 1) setTimeout(() => socket.destroy(), 200);
        return socket;
      },
    });
    io.stdin.write(INITIALIZE);
    await until(() => connects === 3 && err().includes("reconnected"), "the third connection");
    io.stdin.write(request(2, "tools/list"));
    await until(() => out.includes('"id":2,"result"'), "the answer over the third connection");
    io.stdin.end();
    expect(await exit).toBe(SHIM_EXIT.ok);
  });

  it("waits for the app as docs/faults.md says: 20 s a request, 10 minutes in all", () => {
    expect(RECONNECT_LIMITS).toEqual({
      backoffInitialMs: 200,
      backoffMaxMs: 5_000,
      giveUpMs: 10 * 60_000,
      requestWaitMs: 20_000,
      queueMaxBytes: 16 * 1024 * 1024,
      replayWaitMs: 10_000,
    });
  });
});
