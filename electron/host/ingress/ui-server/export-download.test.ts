// Browser mode's export as a download: a real UI server over a real log written through the
// real writer, the link asked for over the authenticated WebSocket, the file fetched over HTTP.
import { mkdtempSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { callInput, makeTempDir } from "../../../../test-support/audit-fixtures.js";
import { ticketOf } from "../../../../test-support/ws-api.js";
import { EventHub } from "../../api/event-hub.js";
import { AuditLog } from "../../audit/audit-log.js";
import { ExportLinks, EXPORT_LINK_TTL_MS, EXPORT_LINKS_MAX } from "./export-download.js";
import { UiServer } from "./ui-server.js";

const ENTRIES = 2_000;

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, pathName: string, method = "GET"): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path: pathName, method, headers: { Host: `127.0.0.1:${port}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the audit export download (browser mode)", () => {
  const refused: AuditEntryInput[] = [];
  let temp: { dir: string; remove: () => Promise<void> };
  let log: AuditLog;
  let server: UiServer;
  let port: number;
  let ws: WebSocket;
  let nextId = 1;

  const ask = (params: unknown): Promise<{ ok: boolean; value?: { url: string } }> => {
    const id = nextId++;
    return new Promise((resolve) => {
      const onMessage = (data: Buffer): void => {
        const message = JSON.parse(data.toString()) as { id?: number; response?: never };
        if (message.id !== id) return;
        ws.off("message", onMessage);
        resolve(message.response!);
      };
      ws.on("message", onMessage);
      ws.send(JSON.stringify({ type: "exportLink", id, params }));
    });
  };

  beforeAll(async () => {
    temp = await makeTempDir();
    log = await AuditLog.open({ dir: path.join(temp.dir, "audit"), fsync: false });
    for (let i = 0; i < ENTRIES; i += 1) await log.append(callInput(i));
    const staticDir = mkdtempSync(path.join(os.tmpdir(), "codemode-ui-static-"));
    writeFileSync(path.join(staticDir, "index.html"), "<!doctype html><title>ok</title>");
    server = await UiServer.start({
      host: {
        api: {} as ApiHandlers,
        events: new EventHub(),
        record: (e) => void refused.push(e),
        audit: {
          export: (format, out, filter) => log.export(format, out, filter),
        },
      },
      staticDir,
      port: 0,
    });
    port = Number(new URL(server.origin).port);
    ws = new WebSocket(`ws://127.0.0.1:${port}/api`, { origin: server.origin });
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send(JSON.stringify({ type: "hello", ticket: ticketOf(server.newLink()) }));
    await new Promise((resolve) => ws.once("message", resolve));
  });

  afterAll(async () => {
    ws?.close();
    await server?.close();
    await log?.close();
    await temp?.remove();
  });

  it("streams the whole log as an attachment, byte for byte, from a one-time link", async () => {
    const link = await ask({ format: "jsonl" });
    expect(link.ok).toBe(true);
    const url = link.value!.url;
    expect(url).toMatch(/^\/audit-export\/[0-9a-f]{64}$/);
    const got = await get(port, url);
    expect(got.status).toBe(200);
    expect(got.headers["content-disposition"]).toMatch(
      /^attachment; filename="codemode-audit-[\d-]+\.jsonl"$/,
    );
    expect(got.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
    expect(got.headers["cache-control"]).toBe("no-store");
    const lines = got.body.trimEnd().split("\n");
    expect(lines).toHaveLength(ENTRIES);
    expect((JSON.parse(lines[0]!) as { seq: number }).seq).toBe(1);
    // Used up: the same link again is refused, and logged.
    const again = await get(port, url);
    expect(again.status).toBe(403);
    expect(refused.at(-1)).toMatchObject({ kind: "auth_refused", transport: "http" });
  });

  it("applies the format and the filter", async () => {
    const link = await ask({ format: "csv", filter: { decision: "refused" } });
    const got = await get(port, link.value!.url);
    expect(got.headers["content-disposition"]).toMatch(/\.csv"$/);
    const rows = got.body.trimEnd().split("\r\n");
    expect(rows).toHaveLength(1 + ENTRIES / 4);
  });

  it("refuses a made-up ticket and a bad request for a link", async () => {
    expect((await get(port, `/audit-export/${"0".repeat(48)}`)).status).toBe(403);
    expect((await get(port, "/audit-export/")).status).toBe(403);
    expect(await ask({ format: "xml" })).toMatchObject({ ok: false, error: { code: "invalid" } });
  });

  it("answers a HEAD 405 without logging a refusal or using the link up", async () => {
    const link = await ask({ format: "jsonl" });
    const before = refused.length;
    const head = await get(port, link.value!.url, "HEAD");
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe("GET");
    expect((await get(port, `/audit-export/${"0".repeat(48)}`, "HEAD")).status).toBe(405);
    expect(refused.slice(before)).toEqual([]);
    expect((await get(port, link.value!.url)).status).toBe(200);
  });
});

describe("ExportLinks", () => {
  it("gives links that work once, until they expire, and keeps only the newest few", () => {
    let now = 1_000;
    const links = new ExportLinks(() => now);
    const ticket = (url: string): string => url.split("/").at(-1)!;
    const a = ticket(links.issue({ format: "jsonl" }));
    expect(links.take(a)).toEqual({ format: "jsonl" });
    expect(links.take(a)).toBeNull();
    const b = ticket(links.issue({ format: "csv" }));
    now += EXPORT_LINK_TTL_MS;
    expect(links.take(b)).toBeNull();
    const many = Array.from({ length: EXPORT_LINKS_MAX + 1 }, () =>
      ticket(links.issue({ format: "csv" })),
    );
    expect(links.take(many[0]!)).toBeNull();
    expect(links.take(many.at(-1)!)).toEqual({ format: "csv" });
  });
});
