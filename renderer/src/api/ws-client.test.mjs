/* global setTimeout */
// The browser-mode client against a real WebSocket server (the `ws` package) in this process.
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket, WebSocketServer } from "ws";
import { createWsClient } from "./ws-client.ts";

/** A host that speaks ws-protocol.ts: checks the token, answers one channel, pushes events. */
async function startHost(token = "secret", port = 0) {
  const wss = new WebSocketServer({ port, host: "127.0.0.1", path: "/api" });
  await new Promise((resolve) => wss.once("listening", resolve));
  /** Messages each connection sent, in order. */
  const received = [];
  const subscribed = new Map();
  wss.on("connection", (ws) => {
    const log = [];
    received.push(log);
    let authed = false;
    ws.on("message", (raw) => {
      const message = JSON.parse(raw.toString());
      log.push(message);
      if (!authed) {
        if (message.type === "hello" && message.token === token) {
          authed = true;
          subscribed.set(ws, new Set());
          ws.send(JSON.stringify({ type: "welcome" }));
        } else {
          ws.close(1008, "");
        }
        return;
      }
      if (message.type === "subscribe") subscribed.get(ws)?.add(message.event);
      if (message.type === "unsubscribe") subscribed.get(ws)?.delete(message.event);
      if (message.type === "request") {
        const response =
          message.channel === "app.description"
            ? { ok: true, value: { text: `echo ${JSON.stringify(message.params)}` } }
            : { ok: false, error: { code: "not_found", message: "no such channel" } };
        ws.send(JSON.stringify({ type: "response", id: message.id, response }));
      }
    });
    ws.on("close", () => subscribed.delete(ws));
  });
  const actualPort = wss.address().port;
  return {
    url: `ws://127.0.0.1:${actualPort}/api`,
    port: actualPort,
    received,
    emit(event, payload) {
      for (const [ws, events] of subscribed) {
        if (events.has(event)) ws.send(JSON.stringify({ type: "event", event, payload }));
      }
    },
    dropAll() {
      for (const ws of wss.clients) ws.terminate();
    },
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}

const WebSocketImpl = NodeWebSocket;
const until = async (check, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
};

let cleanups = [];
afterEach(async () => {
  for (const fn of cleanups.reverse()) await fn();
  cleanups = [];
});

function client(url, token = "secret") {
  const c = createWsClient(url, token, { WebSocketImpl, minBackoffMs: 20, maxBackoffMs: 80 });
  cleanups.push(() => c.close());
  return c;
}

describe("createWsClient", () => {
  it("says hello first, waits for welcome, and matches responses by id", async () => {
    const host = await startHost();
    cleanups.push(() => host.close());
    const api = client(host.url);
    const [a, b] = await Promise.all([
      api.request("app.description", {}),
      api.request("servers.list", {}),
    ]);
    expect(host.received[0][0]).toEqual({ type: "hello", token: "secret" });
    expect(a).toEqual({ ok: true, value: { text: "echo {}" } });
    expect(b).toEqual({ ok: false, error: { code: "not_found", message: "no such channel" } });
    expect(api.status().state).toBe("open");
  });

  it("subscribes once per event however many listeners, and unsubscribes after the last", async () => {
    const host = await startHost();
    cleanups.push(() => host.close());
    const api = client(host.url);
    await api.request("app.description", {});
    const got = [];
    const off1 = api.subscribe("taint.changed", () => got.push("one"));
    const off2 = api.subscribe("taint.changed", () => got.push("two"));
    await until(() => host.received[0].some((m) => m.type === "subscribe"));
    host.emit("taint.changed", []);
    await until(() => got.length === 2);
    off1();
    off1();
    host.emit("taint.changed", []);
    await until(() => got.length === 3);
    off2();
    await until(() => host.received[0].some((m) => m.type === "unsubscribe"));
    const kinds = host.received[0].map((m) => m.type);
    expect(kinds.filter((k) => k === "subscribe")).toHaveLength(1);
    expect(kinds.filter((k) => k === "unsubscribe")).toHaveLength(1);
    expect(got).toEqual(["one", "two", "two"]);
  });

  it("fails requests with `unavailable` while disconnected, then reconnects and re-subscribes", async () => {
    const host = await startHost();
    const port = host.port;
    const api = client(host.url);
    await api.request("app.description", {});
    const got = [];
    api.subscribe("clients.changed", (p) => got.push(p));
    await until(() => host.received[0].some((m) => m.type === "subscribe"));

    await host.close();
    await until(() => api.status().state === "reconnecting");
    const response = await api.request("app.description", {});
    expect(response.ok).toBe(false);
    if (!response.ok) expect(response.error.code).toBe("unavailable");

    const again = await startHost("secret", port);
    cleanups.push(() => again.close());
    await until(() => api.status().state === "open", 5000);
    await until(() => (again.received[0] ?? []).some((m) => m.type === "subscribe"));
    again.emit("clients.changed", [{ name: "x" }]);
    await until(() => got.length === 1);
    expect(await api.request("app.description", {})).toMatchObject({ ok: true });
  });

  it("stops trying when the host refuses the token", async () => {
    const host = await startHost("right");
    cleanups.push(() => host.close());
    const api = client(host.url, "wrong");
    const response = await api.request("app.description", {});
    expect(response).toMatchObject({ ok: false, error: { code: "unavailable" } });
    await until(() => api.status().state === "refused");
    await new Promise((r) => setTimeout(r, 200));
    expect(host.received).toHaveLength(1);
  });
});
