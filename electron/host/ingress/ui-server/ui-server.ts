import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import {
  API_EVENTS,
  type ApiEventName,
  type ApiHandlers,
} from "../../../../shared/api/api-contract.js";
import {
  WS_CLOSE,
  wsClientMessage,
  wsHello,
  type WsServerMessage,
} from "../../../../shared/api/ws-protocol.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { AUDIT_EXPORT_PATH, auditExportParams } from "../../../../shared/api/audit-export.js";
import { dispatchApi } from "../../api/api-dispatcher.js";
import { approvalHandlers, type ApprovalServices } from "../../api/handlers/approval-handlers.js";
import { pinHandlers, type PinServices } from "../../api/handlers/pin-handlers.js";
import { tryHandlers, type TryServices } from "../../api/handlers/try-handlers.js";
import { ConnectionCap } from "../../util/connection-cap.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import type { EventHub } from "../../api/event-hub.js";
import { CutOffLog } from "../../audit/flood/cut-off-log.js";
import { ConnectionCapLog } from "../../audit/flood/connection-cap-log.js";
import { ExportLinks, sendExport, type StreamExport } from "./export-download.js";
import { UiAccess } from "./ui-access.js";
import { MiB } from "../../util/units.js";

/** Largest message the host accepts from a browser (a pasted config is the biggest). */
export const WS_MESSAGE_MAX_BYTES = 2 * MiB;

/** Browser mode: a WebSocket that has not sent its hello (the token) by then is closed. */
export const WS_HELLO_TIMEOUT_MS = 10_000;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".map": "application/json",
  ".ico": "image/x-icon",
};

const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
};

/** What the UI server uses of the host: the API, its events, the log for refusals and export. */
export interface UiServerHost {
  api: ApiHandlers;
  /** Answers given in the browser are logged as the browser's. */
  approvals?: ApprovalServices | undefined;
  /** Reviews of held tool definitions made in the browser are logged as the browser's. */
  pins?: PinServices | undefined;
  /** Tries of servers asked in the browser are logged as the browser's. */
  tries?: TryServices | undefined;
  events: Pick<EventHub, "on">;
  record(entry: AuditEntryInput): void;
  audit: { export: StreamExport };
}

export interface UiServerOptions {
  host: UiServerHost;
  /** The built renderer (renderer/dist). */
  staticDir: string;
  /** 0 picks a free port. */
  port: number;
  log?: (line: string) => void;
  /** The clock tickets expire by (tests move it). */
  now?: () => number;
}

/**
 * Browser mode: the built UI and its WebSocket on 127.0.0.1 only. A page is served only to a
 * request whose Host is this address (DNS rebinding), the socket only to this Origin (other
 * sites), and the API only to a page signed in with a one-time link (ui-access.ts); no CORS
 * headers at all.
 */
export class UiServer {
  private readonly http: http.Server;
  private readonly access: UiAccess;
  private readonly wss: WebSocketServer;
  private boundPort = 0;
  private readonly exportLinks = new ExportLinks();
  private readonly cutOffs: CutOffLog;

  private constructor(private readonly options: UiServerOptions) {
    this.cutOffs = new CutOffLog((entry) => options.host.record(entry));
    this.access = new UiAccess(options.now);
    this.http = http.createServer((req, res) => {
      // A request must never take the daemon down: any failure is this request's 500.
      this.serve(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
    // Before any token is seen: anyone on this machine can open connections to the port.
    const cap = new ConnectionCap(
      this.http,
      HOST_LIMITS.httpConnectionsMax,
      new ConnectionCapLog("ui", (entry) => options.host.record(entry)),
    );
    this.wss = new WebSocketServer({ noServer: true, maxPayload: WS_MESSAGE_MAX_BYTES });
    this.http.on("upgrade", (req, socket, head) => {
      if (
        new URL(req.url ?? "/", "http://x").pathname !== "/api" ||
        !this.hostAllowed(req) ||
        !this.originAllowed(req)
      ) {
        options.host.record({
          kind: "auth_refused",
          reason: "browser connection from another host or origin",
          transport: "ws",
        });
        socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) =>
        this.session(ws, () => cap.trust(socket as Socket)),
      );
    });
  }

  static async start(options: UiServerOptions): Promise<UiServer> {
    const server = new UiServer(options);
    await new Promise<void>((resolve, reject) => {
      server.http.once("error", reject);
      server.http.listen(options.port, "127.0.0.1", () => resolve());
    });
    server.boundPort = (server.http.address() as AddressInfo).port;
    return server;
  }

  /**
   * A new link that opens the UI: it works once, within HOST_LIMITS.uiTicketTtlMs. The ticket
   * is in the fragment, which the browser never sends in a request.
   */
  newLink(): string {
    return `${this.origin}/#ticket=${this.access.issueTicket()}`;
  }

  get port(): number {
    return this.boundPort;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  private allowedHosts(): string[] {
    return [`127.0.0.1:${this.boundPort}`, `localhost:${this.boundPort}`];
  }

  private hostAllowed(req: http.IncomingMessage): boolean {
    return this.allowedHosts().includes(req.headers.host ?? "");
  }

  private originAllowed(req: http.IncomingMessage): boolean {
    const origin = req.headers.origin;
    return origin !== undefined && this.allowedHosts().some((h) => origin === `http://${h}`);
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hostAllowed(req)) {
      res.writeHead(421, { "Content-Type": "text/plain" }).end("wrong host");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    let urlPath: string;
    try {
      urlPath = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    } catch {
      res.writeHead(400, { "Content-Type": "text/plain" }).end("bad path");
      return;
    }
    if (urlPath.startsWith(AUDIT_EXPORT_PATH)) {
      this.serveExport(req, res, urlPath.slice(AUDIT_EXPORT_PATH.length));
      return;
    }
    const root = path.resolve(this.options.staticDir);
    let file = path.resolve(root, "." + (urlPath === "/" ? "/index.html" : urlPath));
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    let info = await stat(file).catch(() => null);
    if (!info?.isFile()) {
      file = path.join(root, "index.html");
      info = await stat(file).catch(() => null);
      if (!info?.isFile()) {
        res
          .writeHead(503, { "Content-Type": "text/plain" })
          .end("The UI is not built: run `npm run build`.");
        return;
      }
    }
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream",
      "Content-Length": info.size,
    });
    if (req.method === "HEAD") res.end();
    else {
      createReadStream(file)
        .on("error", () => res.destroy())
        .pipe(res);
    }
  }

  /** A download of the audit export, for a live one-time link only (see export-download.ts). */
  private serveExport(req: http.IncomingMessage, res: http.ServerResponse, ticket: string): void {
    // A HEAD is no attempt to use a link (browsers and link checkers send them): it is
    // answered 405, and neither uses the link up nor goes to the log as a refusal.
    if (req.method !== "GET") {
      res.writeHead(405, { ...SECURITY_HEADERS, Allow: "GET" }).end();
      return;
    }
    const params = this.exportLinks.take(ticket);
    if (params === null) {
      this.options.host.record({
        kind: "auth_refused",
        reason: "audit export link not issued, used already, or expired",
        transport: "http",
      });
      res
        .writeHead(403, { ...SECURITY_HEADERS, "Content-Type": "text/plain" })
        .end("This export link is not valid (links work once, for a minute): export again.");
      return;
    }
    const audit = this.options.host.audit;
    void sendExport(
      res,
      params,
      (format, out, filter) => audit.export(format, out, filter),
      SECURITY_HEADERS,
      this.options.log,
    );
  }

  /** `onSignedIn`: the page proved a ticket or session; its connection is kept under the cap. */
  private session(ws: WebSocket, onSignedIn: () => void): void {
    const host = this.options.host;
    const api: ApiHandlers = {
      ...host.api,
      ...(host.approvals === undefined ? {} : approvalHandlers(host.approvals, "browser")),
      ...(host.pins === undefined ? {} : pinHandlers(host.pins, "browser")),
      ...(host.tries === undefined ? {} : tryHandlers(host.tries, "browser")),
    };
    let authed = false;
    const subscriptions = new Map<ApiEventName, () => void>();
    const send = (message: WsServerMessage): void => {
      if (ws.readyState !== ws.OPEN) return;
      // Every request is answered, and a page that asks without reading kept every answer in
      // the host's memory (an audit page is up to 4 Mi characters): past the bound, it is cut off.
      const unread = ws.bufferedAmount;
      if (unread > HOST_LIMITS.wsUnreadMaxBytes) {
        this.cutOffs.ws(unread);
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify(message));
    };
    const helloTimer = setTimeout(
      () => ws.close(WS_CLOSE.badSession, "no hello"),
      WS_HELLO_TIMEOUT_MS,
    );
    ws.on("close", () => {
      clearTimeout(helloTimer);
      for (const off of subscriptions.values()) off();
      subscriptions.clear();
    });
    ws.on("message", (data: Buffer) => {
      let value: unknown;
      try {
        value = JSON.parse(data.toString("utf8"));
      } catch {
        ws.close(WS_CLOSE.badMessage, "not JSON");
        return;
      }
      if (!authed) {
        const welcome = this.signIn(value);
        if (welcome === null) {
          ws.close(WS_CLOSE.badSession, "bad session");
          return;
        }
        if (welcome === "bad ticket") {
          ws.close(WS_CLOSE.badTicket, "link used already or expired");
          return;
        }
        authed = true;
        onSignedIn();
        clearTimeout(helloTimer);
        send(welcome);
        return;
      }
      const parsed = wsClientMessage.safeParse(value);
      if (!parsed.success) {
        ws.close(WS_CLOSE.badMessage, "unknown message");
        return;
      }
      const message = parsed.data;
      if (message.type === "exportLink") {
        const params = auditExportParams.safeParse(message.params);
        send({
          type: "response",
          id: message.id,
          response: params.success
            ? { ok: true, value: { url: this.exportLinks.issue(params.data) } }
            : {
                ok: false,
                error: {
                  code: "invalid",
                  message: `invalid export request: ${params.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ")}`,
                },
              },
        });
        return;
      }
      if (message.type === "request") {
        void dispatchApi(api, message.channel, message.params, (channel, error) =>
          this.options.log?.(`api ${channel}: ${String(error)}`),
        ).then((response) => send({ type: "response", id: message.id, response }));
        return;
      }
      const event = message.event as ApiEventName;
      if (!(API_EVENTS as readonly string[]).includes(event)) return;
      if (message.type === "subscribe" && !subscriptions.has(event)) {
        subscriptions.set(
          event,
          host.events.on(event, (payload) =>
            send({ type: "event", event, payload } as WsServerMessage),
          ),
        );
      } else if (message.type === "unsubscribe") {
        subscriptions.get(event)?.();
        subscriptions.delete(event);
      }
    });
  }

  /**
   * The welcome for a hello with a live ticket (which it uses up) or a known session; else
   * the refusal, logged.
   */
  private signIn(value: unknown): WsServerMessage | "bad ticket" | null {
    const parsed = wsHello.safeParse(value);
    const hello = parsed.success ? parsed.data : null;
    if (hello !== null && "ticket" in hello) {
      const session = this.access.exchange(hello.ticket);
      if (session !== null) return { type: "welcome", session };
    } else if (hello !== null && this.access.sessionValid(hello.session)) {
      return { type: "welcome" };
    }
    const ticket = hello !== null && "ticket" in hello;
    this.options.host.record({
      kind: "auth_refused",
      reason: ticket
        ? "browser UI link not issued, used already, or expired"
        : "browser UI presented an unknown session",
      transport: "ws",
    });
    return ticket ? "bad ticket" : null;
  }

  async close(): Promise<void> {
    // Cut-offs left out of the log and not yet counted there: before the host's log closes.
    this.cutOffs.flush();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
