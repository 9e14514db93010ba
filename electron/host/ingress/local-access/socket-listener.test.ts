import { lstat, readFile, readdir, stat, writeFile } from "node:fs/promises";
import type net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  helloLine,
  newNonce,
  parseHostReply,
  proof,
  readLine,
  shimProofLine,
} from "./handshake.js";
import { lockPath } from "./instance-lock.js";
import {
  LocalSocketListener,
  type ListenOptions,
  type Refusal,
  HANDSHAKE_MAX_BYTES,
  SOCKET_CONNECTIONS_MAX,
} from "./socket-listener.js";
import { prepareSocketDir, socketLocationFor } from "./socket-path.js";
import {
  authenticate,
  collect,
  connect,
  deadPid,
  handshake,
  leaveStaleSocket,
} from "../../../../test-support/local-access.js";
import { until } from "../../../../test-support/wait.js";
import { readToken } from "./token.js";
import { alsoRemove, removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { HANDSHAKE_REPLY_MAX_BYTES } from "../../shim/shim-handshake.js";

const listeners: LocalSocketListener[] = [];
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  removeTempDirs();
});

interface Started {
  listener: LocalSocketListener;
  socketPath: string;
  token: string;
  accepted: net.Socket[];
  refused: Refusal[];
}

/** A listener whose onConnection echoes every byte back. */
async function startEcho(dataDir: string, extra: Partial<ListenOptions> = {}): Promise<Started> {
  const listener = new LocalSocketListener();
  listeners.push(listener);
  const accepted: net.Socket[] = [];
  const refused: Refusal[] = [];
  await listener.listen({
    dataDir,
    env: {},
    onConnection: (socket) => {
      accepted.push(socket);
      socket.pipe(socket);
    },
    onRefused: (refusal) => refused.push(refusal),
    ...extra,
  });
  const socketPath = listener.socketPath;
  if (socketPath === undefined) throw new Error("not listening");
  return { listener, socketPath, token: await readToken(dataDir), accepted, refused };
}

function track(socket: net.Socket): net.Socket {
  sockets.push(socket);
  return socket;
}

describe("LocalSocketListener", () => {
  it("listens in a 0700 run/ directory on a 0600 socket", async () => {
    const dataDir = tempDir("cm-la-");
    const { socketPath } = await startEcho(dataDir);
    expect(socketPath).toBe(path.join(dataDir, "run", "codemode.sock"));
    expect((await stat(path.dirname(socketPath))).mode & 0o777).toBe(0o700);
    const socketStat = await lstat(socketPath);
    expect(socketStat.isSocket()).toBe(true);
    expect(socketStat.mode & 0o777).toBe(0o600);
  });

  it("refuses a bad token with ERR, calls onRefused, and no byte reaches onConnection", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const wrong = "0".repeat(64) === started.token ? "1".repeat(64) : "0".repeat(64);
    const { socket, reply, hostProved } = await authenticate(
      started.socketPath,
      wrong,
      '{"jsonrpc":"2.0"}\n',
    );
    track(socket);
    // The host proved itself first, with the real token: a client with another token sees it.
    expect(hostProved).toBe(false);
    expect(reply).toEqual({ kind: "line", line: "ERR bad token" });
    // The server closes after its one line.
    const rest = await collect(socket);
    expect(rest.length).toBe(0);
    expect(started.refused).toEqual([{ id: 1, reason: "bad-token", message: "bad token" }]);
    expect(started.accepted).toHaveLength(0);
  });

  it("refuses a connection past connectionsMax with ERR, and takes one again once another closed", async () => {
    // A token holder connecting in a loop held a session per connection, without bound.
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir, { connectionsMax: 2 });
    const idle = [
      track(await connect(started.socketPath)),
      track(await connect(started.socketPath)),
    ];
    for (const socket of idle) socket.on("error", () => undefined);
    const third = await authenticate(started.socketPath, started.token);
    track(third.socket);
    expect(third.reply).toEqual({
      kind: "line",
      line: `ERR too many connections open to Code Mode (${SOCKET_CONNECTIONS_MAX}): close MCP clients you no longer use`,
    });
    await until(() => started.refused.length === 1, "the refusal");
    expect(started.refused[0]).toMatchObject({ id: 3, reason: "busy" });
    expect(started.accepted).toHaveLength(0);
    idle[0]!.destroy();
    let next: Awaited<ReturnType<typeof authenticate>> | undefined;
    await until(async () => {
      next?.socket.destroy();
      next = await authenticate(started.socketPath, started.token);
      track(next.socket);
      return next.reply.kind === "line" && next.reply.line === "OK";
    }, "a connection taken once one closed");
    expect(started.accepted).toHaveLength(1);
  });

  it("refuses a line that is not a handshake, and a missing one", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const a = await handshake(
      started.socketPath,
      '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n',
    );
    track(a.socket);
    expect(a.reply).toEqual({ kind: "line", line: "ERR malformed handshake" });
    const b = await handshake(started.socketPath, `CODEMODE\n`);
    track(b.socket);
    expect(b.reply).toEqual({ kind: "line", line: "ERR malformed handshake" });
    await until(() => started.refused.length === 2, "two refusals");
    expect(started.refused.map((r) => r.reason)).toEqual(["malformed", "malformed"]);
    expect(started.accepted).toHaveLength(0);
  });

  it(`refuses a handshake line over ${HANDSHAKE_MAX_BYTES} bytes without waiting for its end`, async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const { socket, reply } = await handshake(
      started.socketPath,
      "CODEMODE " + "a".repeat(HANDSHAKE_MAX_BYTES),
    );
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "ERR handshake line too long" });
    expect(started.refused.map((r) => r.reason)).toEqual(["too-long"]);
  });

  it("refuses a client that says nothing once the handshake time is up", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir, { handshakeTimeoutMs: 200 });
    const { socket, reply } = await handshake(started.socketPath, "");
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "ERR handshake timeout" });
    expect(started.refused.map((r) => r.reason)).toEqual(["timeout"]);
  });

  it("passes bytes both ways after OK, including bytes sent in the same packet as the handshake", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const first = '{"jsonrpc":"2.0","id":1,"method":"initialize"}\n';
    const { socket, reply } = await authenticate(started.socketPath, started.token, first);
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "OK" });
    const received = collect(socket);
    socket.write("second line\n");
    socket.end(Buffer.from([0, 1, 2, 255]));
    const echoed = await received;
    expect(
      echoed.equals(
        Buffer.concat([Buffer.from(first + "second line\n"), Buffer.from([0, 1, 2, 255])]),
      ),
    ).toBe(true);
    expect(started.accepted).toHaveLength(1);
    expect(started.refused).toHaveLength(0);
  });

  it("keeps a large first MCP message that arrives in the handshake's packet whole", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const big = Buffer.alloc(256 * 1024, 0x61);
    const { socket, reply } = await authenticate(started.socketPath, started.token, big);
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "OK" });
    const received = collect(socket);
    socket.end();
    expect((await received).equals(big)).toBe(true);
  });

  it("hands over a stream that a plain on('data') consumer can read", async () => {
    const dataDir = tempDir("cm-la-");
    const seen: Buffer[] = [];
    const listener = new LocalSocketListener();
    listeners.push(listener);
    await listener.listen({
      dataDir,
      env: {},
      onConnection: (socket) => socket.on("data", (chunk: Buffer) => seen.push(chunk)),
    });
    const token = await readToken(dataDir);
    const { socket } = await authenticate(listener.socketPath ?? "", token, "early bytes");
    track(socket);
    socket.write(" and later ones");
    await until(
      () => Buffer.concat(seen).toString() === "early bytes and later ones",
      "both writes",
    );
  });

  it("refuses a second listener on the same data dir with a clear message", async () => {
    const dataDir = tempDir("cm-la-");
    await startEcho(dataDir);
    const second = new LocalSocketListener();
    listeners.push(second);
    await expect(
      second.listen({ dataDir, env: {}, onConnection: () => undefined }),
    ).rejects.toThrow(`Code Mode is already running for ${dataDir} (pid ${process.pid})`);
    // The first one is untouched.
    expect((await lstat(path.join(dataDir, "run", "codemode.sock"))).isSocket()).toBe(true);
  });

  it("cleans up a stale socket file and a stale lock (dead pid) before listening", async () => {
    const dataDir = tempDir("cm-la-");
    const location = socketLocationFor(dataDir, {});
    await prepareSocketDir(location);
    await leaveStaleSocket(location.socketPath);
    await writeFile(lockPath(dataDir), `${await deadPid()}\n`);
    const started = await startEcho(dataDir);
    expect(await readFile(lockPath(dataDir), "utf8")).toBe(`${process.pid}\n`);
    const { socket, reply } = await authenticate(started.socketPath, started.token);
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "OK" });
  });

  it("close() drops open connections, removes the socket file and releases the lock", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const { socket } = await authenticate(started.socketPath, started.token);
    track(socket);
    const pending = track(await connect(started.socketPath));
    pending.on("error", () => undefined);
    const closed = Promise.all([
      new Promise((resolve) => socket.once("close", resolve)),
      new Promise((resolve) => pending.once("close", resolve)),
    ]);
    await started.listener.close();
    await closed;
    await expect(lstat(started.socketPath)).rejects.toThrow(/ENOENT/);
    await expect(lstat(lockPath(dataDir))).rejects.toThrow(/ENOENT/);
    // Nothing was refused on the way down.
    expect(started.refused).toHaveLength(0);
  });

  it("listens on a short fallback path under 100 bytes when the data dir path is long", async () => {
    const parent = tempDir("cm-la-");
    const dataDir = path.join(parent, "a-rather-long-folder-name-".repeat(4));
    const location = socketLocationFor(dataDir, {});
    if (location.kind !== "unix") throw new Error("expected a unix socket");
    alsoRemove(location.dir);
    expect(Buffer.byteLength(path.join(dataDir, "run", "codemode.sock"))).toBeGreaterThan(100);
    const started = await startEcho(dataDir);
    expect(started.socketPath).toBe(location.socketPath);
    expect(Buffer.byteLength(started.socketPath)).toBeLessThanOrEqual(100);
    expect((await stat(location.dir)).mode & 0o777).toBe(0o700);
    expect((await lstat(started.socketPath)).mode & 0o777).toBe(0o600);
    const { socket, reply } = await authenticate(started.socketPath, started.token);
    track(socket);
    expect(reply).toEqual({ kind: "line", line: "OK" });
  });

  it("proves itself first, and the token never crosses the socket either way", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const done = await authenticate(started.socketPath, started.token);
    track(done.socket);
    expect(done.hostProved).toBe(true);
    expect(done.reply).toEqual({ kind: "line", line: "OK" });
    expect(done.sent).not.toContain(started.token);
    expect(done.received).not.toContain(started.token);
  });

  it("refuses a shim from before the challenge-response with a clear 'outdated handshake' line", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    const { socket, reply } = await handshake(started.socketPath, `CODEMODE ${started.token}\n`);
    track(socket);
    if (reply.kind !== "line") throw new Error(`no answer: ${reply.kind}`);
    expect(reply.line).toMatch(/^ERR outdated handshake: /);
    expect(reply.line).toContain("update the MCP client's Code Mode entry");
    // Old shims read at most this many bytes of the answer.
    expect(Buffer.byteLength(reply.line + "\n")).toBeLessThanOrEqual(HANDSHAKE_REPLY_MAX_BYTES);
    expect(started.refused.map((r) => r.reason)).toEqual(["outdated"]);
    expect(started.accepted).toHaveLength(0);
  });

  it("refuses the host's own proof sent back, and a proof replayed from another connection", async () => {
    const dataDir = tempDir("cm-la-");
    const started = await startEcho(dataDir);
    // Reflection: the host's proof for our nonce, returned as ours.
    const nonce = newNonce();
    const a = await handshake(started.socketPath, helloLine(nonce));
    track(a.socket);
    if (a.reply.kind !== "line") throw new Error("no proof");
    const host = parseHostReply(a.reply.line);
    if (host.kind !== "proof") throw new Error(`not a proof: ${a.reply.line}`);
    a.socket.write(shimProofLine(host.hostProof));
    expect(await readLine(a.socket, 200, 5_000)).toEqual({ kind: "line", line: "ERR bad token" });
    // Replay: a good proof from one connection, sent on another with the same shim nonce.
    const good = proof("shim", started.token, nonce, host.hostNonce);
    const b = await handshake(started.socketPath, helloLine(nonce));
    track(b.socket);
    b.socket.write(shimProofLine(good));
    expect(await readLine(b.socket, 200, 5_000)).toEqual({ kind: "line", line: "ERR bad token" });
    expect(started.refused.map((r) => r.reason)).toEqual(["bad-token", "bad-token"]);
    expect(started.accepted).toHaveLength(0);
  });

  it("never shows the socket at its real name with a mode wider than 0600", async () => {
    const dataDir = tempDir("cm-la-");
    const location = socketLocationFor(dataDir, {});
    if (location.kind !== "unix") throw new Error("expected a unix socket");
    await prepareSocketDir(location);
    const modes: number[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const found = await lstat(location.socketPath).catch(() => null);
        if (found) modes.push(found.mode & 0o777);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await startEcho(dataDir);
    watching = false;
    await watch;
    expect(new Set(modes)).toEqual(new Set([0o600]));
    // No temporary name is left behind.
    expect(await readdir(location.dir)).toEqual(["codemode.sock"]);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ SOCKET_CONNECTIONS_MAX, HANDSHAKE_MAX_BYTES }).toEqual({
      SOCKET_CONNECTIONS_MAX: 256,
      HANDSHAKE_MAX_BYTES: 200,
    });
  });
});
