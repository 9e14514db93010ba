import { spawn } from "node:child_process";
import { chown, mkdir, readFile, writeFile, chmod } from "node:fs/promises";
import net, { createConnection } from "node:net";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  SHIM_EXIT,
  SHIM_NOT_RUNNING_CODE,
  SHIM_STOPPED_CODE,
} from "../local-access/local-access-constants.js";
import { LocalSocketListener, type ListenOptions } from "../local-access/socket-listener.js";
import { socketLocationFor } from "../local-access/socket-path.js";
import { collect } from "../../../test-support/local-access.js";
import { until } from "../../../test-support/wait.js";
import { tokenPath } from "../local-access/token.js";
import { requestId, runShim, type ShimOptions } from "./shim.js";
import { shimCommand } from "./shim-command.js";
import { alsoRemove, removeTempDirs, tempDir } from "../../../test-support/temp-dir.js";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const listeners: LocalSocketListener[] = [];

const servers: net.Server[] = [];
const NOBODY = 65_534;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  removeTempDirs();
});

const INITIALIZE =
  '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n';

async function listen(
  dataDir: string,
  onConnection: ListenOptions["onConnection"],
): Promise<LocalSocketListener> {
  const listener = new LocalSocketListener();
  listeners.push(listener);
  await listener.listen({ dataDir, env: {}, onConnection });
  return listener;
}

const echo = (socket: net.Socket): void => {
  socket.pipe(socket);
};

function shimIO(): Pick<ShimOptions, "stdin" | "stdout" | "stderr"> & {
  stdin: PassThrough;
  stdout: PassThrough;
  stderr: PassThrough;
} {
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
}

function text(stream: PassThrough): string {
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = stream.read() as Buffer | null;
    if (chunk === null) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

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

  it("exits 0 when the host ends the connection while the client's stdin is still open", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, (socket) => {
      socket.once("data", () => socket.end("bye\n"));
    });
    const io = shimIO();
    const out = collect(io.stdout);
    const exit = runShim({ ...io, dataDir, env: {} });
    io.stdin.write("hello\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect((await out).toString()).toBe("bye\n");
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

  it("exits 1 when the connection breaks instead of ending", async () => {
    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    const io = shimIO();
    let client: net.Socket | undefined;
    const exit = runShim({
      ...io,
      dataDir,
      env: {},
      connect: (target) => (client = createConnection(target)),
    });
    io.stdin.write("hello\n");
    await until(() => io.stdout.readableLength > 0, "the echo");
    // What a host crash looks like from here on platforms that report it as a reset.
    client?.destroy(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    expect(await exit).toBe(SHIM_EXIT.failed);
    expect(text(io.stderr)).toContain("lost the connection to Code Mode");
  });

  it("answers the requests the host left unanswered with a 'Code Mode stopped' error when it goes away, and exits 1", async () => {
    const dataDir = tempDir("cm-la-");
    // Answers request 1, swallows 2 and "b", then goes away.
    let host: net.Socket | undefined;
    await listen(dataDir, (socket) => {
      host = socket;
      socket.once("data", () => socket.write('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
    });
    const io = shimIO();
    const exit = runShim({ ...io, dataDir, env: {} });
    io.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call"}\n',
    );
    io.stdin.write('{"jsonrpc":"2.0","id":"b","method":"tools/call"}\n');
    await until(() => host !== undefined && io.stdout.readableLength > 0, "the host's answer");
    await new Promise((resolve) => setTimeout(resolve, 50));
    host?.end();
    expect(await exit).toBe(SHIM_EXIT.failed);
    const lines = text(io.stdout)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    const message = "Code Mode stopped: it went away before answering (the app quit or crashed)";
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: SHIM_STOPPED_CODE, message } },
      { jsonrpc: "2.0", id: "b", error: { code: SHIM_STOPPED_CODE, message } },
    ]);
    expect(text(io.stderr)).toContain(
      "codemode shim: Code Mode stopped: it closed the connection; answered 2 request(s) in flight with an error",
    );
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

/**
 * A socket someone else put where the shim connects: it records every byte it receives and
 * answers as `answer` says (by default, as a host that does not know the token would).
 */
async function impostor(
  socketPath: string,
  answer: (socket: net.Socket, line: string) => void = (socket) =>
    socket.write(`CODEMODE/2 PROOF ${"b".repeat(64)} ${"c".repeat(64)}\n`),
): Promise<{ received: () => string }> {
  let received = "";
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
      answer(socket, chunk.toString("utf8"));
    });
  });
  await mkdir(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  servers.push(server);
  return { received: () => received };
}

describe("the install token never goes to a socket that isn't ours (issue 8 §4)", () => {
  it("sends an impostor listening at the socket path nothing it can use, and refuses it", async () => {
    const dataDir = tempDir("cm-la-");
    const token = "d".repeat(64);
    await writeFile(tokenPath(dataDir), token + "\n", { mode: 0o600 });
    const fake = await impostor(socketLocationFor(dataDir, {}).socketPath);
    const io = shimIO();
    io.stdin.write(INITIALIZE);
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(fake.received()).not.toContain(token);
    // It got a nonce and nothing more: no proof from the shim, no MCP byte.
    expect(fake.received()).toMatch(/^CODEMODE\/2 HELLO [0-9a-f]{64}\n$/);
    const said = text(io.stderr);
    expect(said).toContain("could not prove it knows this install's token");
    expect(said).toContain("Nothing was sent to it");
  });

  it("refuses a socket directory someone else makes while it waits for the app to start", async () => {
    // A data directory whose socket path is too long falls back to a directory under /tmp,
    // which anyone can create first.
    const parent = tempDir("cm-la-");
    const dataDir = path.join(parent, "a-rather-long-folder-name-".repeat(4));
    await mkdir(dataDir, { mode: 0o700 });
    const token = "e".repeat(64);
    await writeFile(tokenPath(dataDir), token + "\n", { mode: 0o600 });
    const location = socketLocationFor(dataDir, {});
    if (location.kind !== "unix" || !location.shared) throw new Error("expected a shared fallback");
    alsoRemove(location.dir);
    let fake: { received: () => string } | undefined;
    const io = shimIO();
    const exit = await runShim({
      ...io,
      dataDir,
      env: {},
      retryIntervalMs: 50,
      timeoutMs: 3_000,
      // Instead of the app, another user arrives: their directory, their listening socket.
      startApp: async () => {
        fake = await impostor(location.socketPath, (socket) => socket.end("OK\n"));
        await chown(location.dir, NOBODY, NOBODY);
        return "nothing (another user made the socket directory)";
      },
    });
    expect(exit).toBe(SHIM_EXIT.failed);
    expect(fake?.received()).toBe("");
    expect(text(io.stderr)).toContain(`${location.dir} belongs to another user (uid ${NOBODY})`);
  });

  it("refuses a socket file of another user in its own directory", async () => {
    const dataDir = tempDir("cm-la-");
    await writeFile(tokenPath(dataDir), "f".repeat(64) + "\n", { mode: 0o600 });
    const socketPath = socketLocationFor(dataDir, {}).socketPath;
    const fake = await impostor(socketPath, (socket) => socket.end("OK\n"));
    await chown(socketPath, NOBODY, NOBODY);
    const io = shimIO();
    expect(await runShim({ ...io, dataDir, env: {} })).toBe(SHIM_EXIT.failed);
    expect(fake.received()).toBe("");
    expect(text(io.stderr)).toContain(`${socketPath} belongs to another user (uid ${NOBODY})`);
  });
});

describe("shim as a real subprocess", () => {
  it("starts, hands over, round-trips and exits 0 when the host ends (start-up printed)", async () => {
    const dataDir = tempDir("cm-la-");
    let handshakeAt = 0;
    await listen(dataDir, (socket) => {
      handshakeAt = performance.now();
      socket.once("data", (chunk: Buffer) => socket.end(`echo:${chunk.toString()}`));
    });
    const env: NodeJS.ProcessEnv = { ...process.env, CODEMODE_HOME: dataDir };
    delete env.CODEMODE_APP;
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, ["--import", "tsx", "electron/host/shim/shim-main.ts"], {
      cwd: repoRoot,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const out = collect(child.stdout);
    const err = collect(child.stderr);
    child.stdin.write("ping\n");
    // stdin stays open: the shim must still exit once the host ends the connection.
    const code = await exited;
    child.stdin.destroy();
    console.log(
      `shim start-up (tsx, spawn -> handshake received by the host): ${(handshakeAt - spawnedAt).toFixed(0)} ms`,
    );
    expect((await err).toString()).toBe("");
    expect(code).toBe(0);
    expect((await out).toString()).toBe("echo:ping\n");
    expect(handshakeAt).toBeGreaterThan(spawnedAt);
  });
});

describe("shim start-up weight", () => {
  it("loads only Node built-ins and its own small modules (nothing from node_modules)", async () => {
    const allowed = new Set([
      "node:net",
      "node:fs",
      "node:fs/promises",
      "node:path",
      "node:crypto",
      "node:child_process",
      // os.tmpdir() for the socket fallback, url for finding the package; both already
      // loaded by Node itself before any user code runs.
      "node:os",
      "node:url",
    ]);
    const seen = new Set<string>();
    const external = new Set<string>();
    const visit = async (file: string): Promise<void> => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = await readFile(file, "utf8");
      // Type-only imports are erased at compile time and cost nothing at start-up.
      // eslint-disable-next-line regexp/no-super-linear-backtracking -- our own source files, not text anyone else controls
      for (const match of source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+"([^"]+)";/gms)) {
        const [, typeOnly, specifier] = match;
        if (typeOnly || specifier === undefined) continue;
        if (specifier.startsWith(".")) {
          await visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, ".ts")));
        } else {
          external.add(specifier);
        }
      }
    };
    await visit(path.join(repoRoot, "electron/host/shim/shim-main.ts"));
    expect([...external].filter((specifier) => !allowed.has(specifier))).toEqual([]);
    const local = [...seen].map((file) => path.relative(repoRoot, file)).sort();
    expect(local).toEqual([
      "electron/host/cli/terminal-text.ts",
      "electron/host/local-access/data-dir-trust.ts",
      "electron/host/local-access/handshake.ts",
      "electron/host/local-access/local-access-constants.ts",
      "electron/host/local-access/socket-path.ts",
      "electron/host/local-access/token.ts",
      "electron/host/paths.ts",
      "electron/host/shim/app-log.ts",
      "electron/host/shim/in-flight.ts",
      "electron/host/shim/shim-handshake.ts",
      "electron/host/shim/shim-main.ts",
      "electron/host/shim/shim.ts",
      "electron/host/shim/start-app.ts",
      "shared/limits.ts",
    ]);
  });
});

describe("codemode shim (CLI command)", () => {
  it("prints help, rejects arguments, and pipes for the data dir in CODEMODE_HOME", async () => {
    const help = shimIO();
    const signal = new AbortController().signal;
    expect(await shimCommand(["--help"], { ...help, env: {}, signal })).toBe(0);
    expect(text(help.stdout)).toContain("Usage: codemode shim");
    const bad = shimIO();
    expect(await shimCommand(["extra"], { ...bad, env: {}, signal })).toBe(2);
    expect(text(bad.stderr)).toContain("takes no arguments");

    const dataDir = tempDir("cm-la-");
    await listen(dataDir, echo);
    const io = shimIO();
    const out = collect(io.stdout);
    const exit = shimCommand([], { ...io, env: { CODEMODE_HOME: dataDir }, signal });
    io.stdin.end("via the CLI\n");
    expect(await exit).toBe(SHIM_EXIT.ok);
    expect((await out).toString()).toBe("via the CLI\n");
  });
});

describe("shim helpers", () => {
  it("reads a JSON-RPC request id, or nothing for lines that are not requests", () => {
    expect(requestId('{"jsonrpc":"2.0","id":1,"method":"initialize"}')).toBe(1);
    expect(requestId('{"id":"x"}')).toBe("x");
    expect(requestId('{"id":null}')).toBeUndefined();
    expect(requestId("[1]")).toBeUndefined();
    expect(requestId("not json")).toBeUndefined();
    expect(requestId("")).toBeUndefined();
  });
});
