// A page holding the browser UI's token cannot grow the host without bound by asking and never
// reading the answers: each request was answered into the socket's buffer in the host's memory,
// ~100 bytes asked for up to megabytes kept (an audit page is up to 4 Mi characters). Now a
// WebSocket whose unread answers pass HOST_LIMITS.wsUnreadMaxBytes is closed, and the audit log
// says so (it used to be silent). A real UI server and a real WebSocket client that stops reading.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { API_CHANNELS, type ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { EventHub } from "../../api/event-hub.js";
import { ticketOf } from "../../../../test-support/ws-api.js";
import { UiServer } from "./ui-server.js";

/** Each answer's size, and how many are asked for: together far past the bound. */
const ANSWER_CHARS = 1024 * 1024;
const REQUESTS = 400;

describe("a browser page that never reads its answers", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "codemode-ws-unread-"));
  let server: UiServer;
  const recorded: AuditEntryInput[] = [];

  beforeAll(async () => {
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>ok</title>");
    // Every channel answers a megabyte, as a page of the audit log can.
    const big = "x".repeat(ANSWER_CHARS);
    const api = Object.fromEntries(
      API_CHANNELS.map((channel) => [channel, () => big]),
    ) as unknown as ApiHandlers;
    server = await UiServer.start({
      host: {
        api,
        events: new EventHub(),
        record: (entry) => recorded.push(entry),
        audit: { export: () => Promise.resolve(0) },
      },
      staticDir: dir,
      port: 0,
    });
  });

  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is cut off once its unread answers pass the bound, and the host stays small", async () => {
    const url = new URL(server.origin);
    const origin = `http://127.0.0.1:${url.port}`;
    const ws = new WebSocket(`ws://127.0.0.1:${url.port}/api`, { origin });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    ws.on("error", () => undefined);
    const welcome = new Promise((resolve) => ws.once("message", resolve));
    ws.send(JSON.stringify({ type: "hello", ticket: ticketOf(server.newLink()) }));
    await welcome;
    // Never read again: the answers pile up on the host's side.
    ws.pause();
    const rssBefore = process.memoryUsage().rss;
    for (let id = 1; id <= REQUESTS; id++) {
      ws.send(JSON.stringify({ type: "request", id, channel: "app.info", params: {} }));
    }
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const grown = process.memoryUsage().rss - rssBefore;
    ws.terminate();
    // Before: every answer kept, ~432 MB; ~74 MB now (the bound and an answer or two).
    expect(grown).toBeLessThan(200 * 1024 * 1024);
    const cutOffs = recorded.filter((e) => e.kind === "client_cut_off");
    expect(cutOffs).toEqual([
      expect.objectContaining({
        transport: "ws",
        client: "browser UI",
        connectionId: null,
        limitBytes: HOST_LIMITS.wsUnreadMaxBytes,
      }),
    ]);
    expect(cutOffs[0]?.unreadBytes).toBeGreaterThan(HOST_LIMITS.wsUnreadMaxBytes);
  }, 60_000);
});
