import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { API_CHANNELS, type ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { ticketOf } from "../../../../test-support/ws-api.js";
import { EventHub } from "../../api/event-hub.js";
import { UiServer, WS_MESSAGE_MAX_BYTES } from "./ui-server.js";
import { UI_TICKETS_MAX, UI_SESSIONS_MAX } from "./ui-access.js";

function get(port: number, pathName: string, host = `127.0.0.1:${port}`): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: pathName, headers: { Host: host } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

function open(url: string, origin: string): Promise<WebSocket> {
  const ws = new WebSocket(url, { origin });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}

function next(ws: WebSocket): Promise<unknown> {
  return new Promise((resolve) =>
    ws.once("message", (data: Buffer) => resolve(JSON.parse(data.toString()))),
  );
}

/** The export is tested in export-download.test.ts; here it writes nothing. */
const exportStub = (): Promise<number> => Promise.resolve(0);

describe("browser-mode UI server", () => {
  const refused: AuditEntryInput[] = [];
  const events = new EventHub();
  // A real object with every channel (the server spreads the handlers into its own map, which
  // a Proxy without own keys would leave empty).
  const api = Object.fromEntries(
    API_CHANNELS.map((channel) => [channel, (params: unknown) => ({ got: params })]),
  ) as unknown as ApiHandlers;
  let server: UiServer;
  let port: number;
  let now = 1_000_000;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-ui-static-"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>ok</title>");
    server = await UiServer.start({
      host: { api, events, record: (e) => void refused.push(e), audit: { export: exportStub } },
      staticDir: dir,
      port: 0,
      now: () => now,
    });
    port = server.port;
  });

  afterAll(() => server.close());

  it("serves the UI to its own address only, and survives a malformed path", async () => {
    expect(await get(port, "/")).toBe(200);
    expect(await get(port, "/", `evil.example:${port}`)).toBe(421);
    expect(await get(port, "/%")).toBe(400);
    expect(await get(port, "/../../etc/passwd")).toBe(200); // resolved inside the UI: index.html
    expect(await get(port, "/")).toBe(200);
  });

  /** The close code a new connection gets for `hello`, or its first message. */
  const helloAnswer = async (hello: unknown): Promise<unknown> => {
    const ws = await open(`ws://127.0.0.1:${port}/api`, server.origin);
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(JSON.stringify(hello));
    const first = await Promise.race([closed, next(ws)]);
    ws.close();
    return first;
  };

  it("refuses a WebSocket from another origin, and a wrong ticket or session", async () => {
    const before = refused.length;
    await expect(open(`ws://127.0.0.1:${port}/api`, "http://evil.example")).rejects.toThrow(/403/);
    expect(await helloAnswer({ type: "hello", ticket: "0".repeat(64) })).toBe(4410);
    expect(await helloAnswer({ type: "hello", session: "0".repeat(64) })).toBe(4401);
    // A hello with any other key is no hello.
    expect(await helloAnswer({ type: "hello", token: "0".repeat(48) })).toBe(4401);
    expect(refused.slice(before).map((e) => e.kind === "auth_refused" && e.reason)).toEqual([
      "browser connection from another host or origin",
      "browser UI link not issued, used already, or expired",
      "browser UI presented an unknown session",
      "browser UI presented an unknown session",
    ]);
  });

  it("signs a page in once per link, for a session that outlives the link", async () => {
    const link = server.newLink();
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#ticket=[0-9a-f]{64}$`));
    const ticket = ticketOf(link);
    const welcome = (await helloAnswer({ type: "hello", ticket })) as { session: string };
    expect(welcome).toEqual({ type: "welcome", session: welcome.session });
    expect(welcome.session).toMatch(/^[0-9a-f]{64}$/);
    expect(welcome.session).not.toBe(ticket);
    // The link is used up; the session it gave works again and again (reconnects, reloads).
    expect(await helloAnswer({ type: "hello", ticket })).toBe(4410);
    expect(await helloAnswer({ type: "hello", session: welcome.session })).toEqual({
      type: "welcome",
    });
    expect(await helloAnswer({ type: "hello", session: welcome.session })).toEqual({
      type: "welcome",
    });
  });

  it("gives one session for a link used by many connections at once", async () => {
    const ticket = ticketOf(server.newLink());
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => helloAnswer({ type: "hello", ticket })),
    );
    expect(answers.filter((a) => typeof a === "object")).toHaveLength(1);
    expect(answers.filter((a) => a === 4410)).toHaveLength(7);
  });

  it("refuses a link once its time is up, and keeps only the newest few", async () => {
    const late = ticketOf(server.newLink());
    now += HOST_LIMITS.uiTicketTtlMs - 1;
    const inTime = ticketOf(server.newLink());
    now += 1;
    expect(await helloAnswer({ type: "hello", ticket: late })).toBe(4410);
    expect(await helloAnswer({ type: "hello", ticket: inTime })).toMatchObject({ type: "welcome" });
    const many = Array.from({ length: UI_TICKETS_MAX + 1 }, () => ticketOf(server.newLink()));
    expect(await helloAnswer({ type: "hello", ticket: many[0] })).toBe(4410);
    expect(await helloAnswer({ type: "hello", ticket: many.at(-1) })).toMatchObject({
      type: "welcome",
    });
  });

  it("with a session, validates requests and pushes subscribed events", async () => {
    const ws = await open(`ws://127.0.0.1:${port}/api`, server.origin);
    ws.send(JSON.stringify({ type: "hello", ticket: ticketOf(server.newLink()) }));
    expect(await next(ws)).toMatchObject({ type: "welcome" });
    ws.send(
      JSON.stringify({ type: "request", id: 1, channel: "taint.reset", params: { client: 7 } }),
    );
    expect(await next(ws)).toMatchObject({
      type: "response",
      id: 1,
      response: { ok: false, error: { code: "invalid" } },
    });
    ws.send(
      JSON.stringify({ type: "request", id: 2, channel: "taint.reset", params: { client: "c" } }),
    );
    expect(await next(ws)).toEqual({
      type: "response",
      id: 2,
      response: { ok: true, value: { got: { client: "c" } } },
    });
    ws.send(JSON.stringify({ type: "subscribe", event: "taint.changed" }));
    await new Promise((r) => setTimeout(r, 50));
    const page = { items: [], total: 0, next: null };
    events.emit("taint.changed", page);
    expect(await next(ws)).toEqual({ type: "event", event: "taint.changed", payload: page });
    ws.close();
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ UI_TICKETS_MAX, UI_SESSIONS_MAX, WS_MESSAGE_MAX_BYTES }).toEqual({
      UI_TICKETS_MAX: 8,
      UI_SESSIONS_MAX: 64,
      WS_MESSAGE_MAX_BYTES: 2 * 1024 * 1024,
    });
  });
});
