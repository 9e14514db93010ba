/* global setTimeout */
// The browser-mode client against a real WebSocket server (the `ws` package) in this process.
// Plain JS so that the renderer's TypeScript program never sees Node types.
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket as NodeWebSocket, WebSocketServer } from "ws";
import { createWsClient } from "./ws-client.ts";

/**
 * A host that speaks ws-protocol.ts: takes each ticket in `tickets` once for a new session,
 * then that session (in `sessions`, which a restarted host may share); answers one channel,
 * pushes events.
 */
async function startHost(tickets = new Set(["ticket-1"]), port = 0, sessions = new Set()) {
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
        if (message.type !== "hello") {
          ws.close(4401, "");
        } else if (message.ticket !== undefined) {
          if (!tickets.delete(message.ticket)) {
            ws.close(4410, "");
            return;
          }
          const session = `session-${sessions.size + 1}`;
          sessions.add(session);
          authed = true;
          subscribed.set(ws, new Set());
          ws.send(JSON.stringify({ type: "welcome", session }));
        } else if (sessions.has(message.session)) {
          authed = true;
          subscribed.set(ws, new Set());
          ws.send(JSON.stringify({ type: "welcome" }));
        } else {
          ws.close(4401, "");
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
    sessions,
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
  kept = [];
});

/** Sessions each client was given, in order. */
let kept = [];

function client(url, credential = { ticket: "ticket-1" }) {
  const c = createWsClient(url, credential, {
    WebSocketImpl,
    minBackoffMs: 20,
    maxBackoffMs: 80,
    onSession: (session) => kept.push(session),
  });
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
    expect(host.received[0][0]).toEqual({ type: "hello", ticket: "ticket-1" });
    expect(kept).toEqual(["session-1"]);
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

    // The ticket was used up: the reconnect says the session it was traded for.
    const again = await startHost(new Set(), port, host.sessions);
    cleanups.push(() => again.close());
    await until(() => api.status().state === "open", 5000);
    expect(again.received[0][0]).toEqual({ type: "hello", session: "session-1" });
    await until(() => (again.received[0] ?? []).some((m) => m.type === "subscribe"));
    again.emit("clients.changed", [{ name: "x" }]);
    await until(() => got.length === 1);
    expect(await api.request("app.description", {})).toMatchObject({ ok: true });
  });

  it("stops trying, and says why, when the host refuses the link's ticket", async () => {
    const host = await startHost();
    cleanups.push(() => host.close());
    const api = client(host.url, { ticket: "used" });
    const response = await api.request("app.description", {});
    expect(response).toMatchObject({ ok: false, error: { code: "unavailable" } });
    await until(() => api.status().state === "refused");
    expect(api.status().problem).toMatch(/^This link has been used already or has expired/);
    await new Promise((r) => setTimeout(r, 200));
    expect(host.received).toHaveLength(1);
    expect(kept).toEqual([]);
  });

  it("stops trying, and says why, when the host no longer knows the session", async () => {
    const host = await startHost();
    cleanups.push(() => host.close());
    const api = client(host.url, { session: "from-before-a-restart" });
    await until(() => api.status().state === "refused");
    expect(api.status().problem).toMatch(/no longer signed in/);
    expect(host.received[0][0]).toEqual({ type: "hello", session: "from-before-a-restart" });
  });
});
