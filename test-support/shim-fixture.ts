// What the shim's unit tests share: a local-access listener on a temporary data directory,
// an echoing host, in-memory stdio for runShim, and the clean-up after each test.
import net from "node:net";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  LocalSocketListener,
  type ListenOptions,
} from "../electron/host/ingress/local-access/socket-listener.js";
import type { ShimOptions } from "../electron/host/shim/shim.js";
import { removeTempDirs } from "./temp-dir.js";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const listeners: LocalSocketListener[] = [];

export const servers: net.Server[] = [];
export const NOBODY = 65_534;

export async function cleanUpShimTests(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  await Promise.all(listeners.splice(0).map((l) => l.close()));
  removeTempDirs();
}

export const INITIALIZE =
  '{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n';

export async function listen(
  dataDir: string,
  onConnection: ListenOptions["onConnection"],
): Promise<LocalSocketListener> {
  const listener = new LocalSocketListener();
  listeners.push(listener);
  await listener.listen({ dataDir, env: {}, onConnection });
  return listener;
}

export const echo = (socket: net.Socket): void => {
  socket.pipe(socket);
};

export function shimIO(): Pick<ShimOptions, "stdin" | "stdout" | "stderr"> & {
  stdin: PassThrough;
  stdout: PassThrough;
  stderr: PassThrough;
} {
  return { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough() };
}

export function text(stream: PassThrough): string {
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = stream.read() as Buffer | null;
    if (chunk === null) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A socket someone else put where the shim connects: it records every byte it receives and
 * answers as `answer` says (by default, as a host that does not know the token would).
 */
export async function impostor(
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
