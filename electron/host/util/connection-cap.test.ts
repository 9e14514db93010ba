import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ConnectionCap } from "./connection-cap.js";

describe("ConnectionCap", () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it("past its max closes the oldest connection not trusted, never a trusted one", async () => {
    const accepted: net.Socket[] = [];
    const server = net.createServer((socket) => accepted.push(socket));
    const cap = new ConnectionCap(server, 3);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const clients: { socket: net.Socket; closed: boolean }[] = [];
    const connect = async (): Promise<void> => {
      const client = { socket: net.connect(port, "127.0.0.1"), closed: false };
      client.socket.on("error", () => undefined);
      client.socket.once("close", () => (client.closed = true));
      clients.push(client);
      closers.push(() => client.socket.destroy());
      await new Promise((resolve) => client.socket.once("connect", resolve));
      const count = clients.length;
      await expect.poll(() => accepted.length).toBe(count);
    };
    for (let i = 0; i < 3; i++) await connect();
    cap.trust(accepted[0]!);
    await connect();
    await expect.poll(() => clients.map((c) => c.closed)).toEqual([false, true, false, false]);
    await connect();
    await expect
      .poll(() => clients.map((c) => c.closed))
      .toEqual([false, true, true, false, false]);
    // All trusted: the one that comes is closed.
    for (const socket of accepted.slice(3)) cap.trust(socket);
    await connect();
    await expect
      .poll(() => clients.map((c) => c.closed))
      .toEqual([false, true, true, false, false, true]);
  });
});
