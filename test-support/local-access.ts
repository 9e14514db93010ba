// Helpers for the local-access and shim tests: a client that speaks the handshake, and the
// leftovers of a crashed host (a dead pid, a stale socket).

import { spawn } from "node:child_process";
import net from "node:net";
import type { Readable } from "node:stream";
import {
  helloLine,
  newNonce,
  parseHostReply,
  proof,
  proofValid,
  readLine,
  shimProofLine,
  type HelloPurpose,
  type LineResult,
} from "../electron/host/ingress/local-access/handshake.js";

export function connect(socketPath: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** Sends `first` in one write and reads the server's one-line answer. */
export async function handshake(
  socketPath: string,
  first: string | Buffer,
): Promise<{ socket: net.Socket; reply: LineResult }> {
  const socket = await connect(socketPath);
  socket.on("error", () => undefined);
  socket.write(first);
  const reply = await readLine(socket, 200, 10_000);
  return { socket, reply };
}

export interface Authenticated {
  socket: net.Socket;
  /** The host's answer to our proof (`OK` or `ERR ...`), or its first line if it sent no proof. */
  reply: LineResult;
  /** Whether the host proved it knows `token`; undefined if it sent no proof. */
  hostProved: boolean | undefined;
  /** Every byte each side sent during the handshake. */
  sent: string;
  received: string;
}

/**
 * The shim's side of the challenge-response, done by hand with `token` (right or wrong) so
 * tests can see each step; `after` goes in the same write as our proof.
 */
export async function authenticate(
  socketPath: string,
  token: string,
  after: string | Buffer = "",
  purpose: HelloPurpose = "mcp",
): Promise<Authenticated> {
  const socket = await connect(socketPath);
  socket.on("error", () => undefined);
  const shimNonce = newNonce();
  let sent = helloLine(shimNonce, purpose);
  socket.write(sent);
  const first = await readLine(socket, 200, 10_000);
  if (first.kind !== "line")
    return { socket, reply: first, hostProved: undefined, sent, received: "" };
  let received = first.line + "\n";
  const host = parseHostReply(first.line);
  if (host.kind !== "proof") return { socket, reply: first, hostProved: undefined, sent, received };
  const hostProved = proofValid(host.hostProof, "host", token, shimNonce, host.hostNonce);
  const mine = shimProofLine(proof("shim", token, shimNonce, host.hostNonce));
  sent += mine;
  socket.write(Buffer.concat([Buffer.from(mine), Buffer.from(after)]));
  const reply = await readLine(socket, 200, 10_000);
  if (reply.kind === "line") received += reply.line + "\n";
  return { socket, reply, hostProved, sent, received };
}

/** Everything a stream yields until it ends. */
export function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer | string) =>
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
    );
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/** The pid of a process that has already exited: a lock holding it is stale. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  if (child.pid === undefined) throw new Error("no pid");
  return child.pid;
}

/**
 * Leaves a socket file nobody listens on, the way a crashed host does: a child binds it
 * and is killed with SIGKILL, so it cannot unlink it.
 */
export async function leaveStaleSocket(socketPath: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      "require('net').createServer().listen(process.argv[1], () => console.log('up'))",
      socketPath,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`socket child exited early (${code})`)));
  });
  child.kill("SIGKILL");
  await new Promise((resolve) => child.once("exit", resolve));
}

/** A client's `initialize` request as one line, for tests that speak MCP on the raw socket. */
export function initializeLine(id: number, name: string): string {
  const params = {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name, version: "1" },
  };
  return JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params }) + "\n";
}

/** The `notifications/initialized` line a client sends once its initialize is answered. */
export const INITIALIZED_LINE =
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n";
