import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { API_CHANNELS, type ApiHandlers } from "../../../shared/api/api-contract.js";
import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { EventHub } from "../app/event-hub.js";
import { UiServer } from "./ui-server.js";

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

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-ui-static-"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>ok</title>");
    server = await UiServer.start({
      host: { api, events, record: (e) => void refused.push(e), audit: { export: exportStub } },
      staticDir: dir,
      port: 0,
    });
    port = Number(new URL(server.origin).port);
  });

  afterAll(() => server.close());

  it("serves the UI to its own address only, and survives a malformed path", async () => {
    expect(await get(port, "/")).toBe(200);
    expect(await get(port, "/", `evil.example:${port}`)).toBe(421);
    expect(await get(port, "/%")).toBe(400);
    expect(await get(port, "/../../etc/passwd")).toBe(200); // resolved inside the UI: index.html
    expect(await get(port, "/")).toBe(200);
  });

  it("refuses a WebSocket from another origin, and a wrong token", async () => {
    await expect(open(`ws://127.0.0.1:${port}/api`, "http://evil.example")).rejects.toThrow(/403/);
    const ws = await open(`ws://127.0.0.1:${port}/api`, server.origin);
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.send(JSON.stringify({ type: "hello", token: "wrong" }));
    expect(await closed).toBe(4401);
    expect(refused.map((e) => e.kind)).toEqual(["auth_refused", "auth_refused"]);
  });

  it("with the token, validates requests and pushes subscribed events", async () => {
    const ws = await open(`ws://127.0.0.1:${port}/api`, server.origin);
    ws.send(JSON.stringify({ type: "hello", token: server.token }));
    expect(await next(ws)).toEqual({ type: "welcome" });
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
