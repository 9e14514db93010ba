import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { HOST_LIMITS } from "../../../shared/limits.js";
import { tokensEqual } from "../local-access/token.js";
import type { ClientSessions } from "../host/client-sessions.js";

export interface McpHttpOptions {
  sessions: ClientSessions;
  port: number;
  token: string;
  onRefused?: (reason: string) => void;
  log?: (line: string) => void;
}

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > HOST_LIMITS.httpBodyMaxBytes) throw new HttpRefusal(413, "request body too large");
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpRefusal(400, "request body is not JSON");
  }
}

/**
 * MCP over HTTP for clients that cannot start the shim: Streamable HTTP on /mcp and the
 * legacy SSE transport on /sse + /messages. 127.0.0.1 only, the Host header must name
 * this address (DNS rebinding), a request from a web page's origin is refused, and every
 * request must carry the install's token as a bearer token. No CORS headers are sent.
 */
export class McpHttpServer {
  private readonly server: http.Server;
  private readonly streamable = new Map<string, StreamableHTTPServerTransport>();
  private readonly sse = new Map<string, SSEServerTransport>();
  /** When each session was last used: HTTP clients can vanish without closing anything. */
  private readonly lastSeen = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private port = 0;

  private constructor(private readonly options: McpHttpOptions) {
    this.sweeper = setInterval(() => this.closeIdle(), HOST_LIMITS.httpSessionSweepMs);
    this.sweeper.unref();
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        const status = error instanceof HttpRefusal ? error.status : 500;
        const message = error instanceof Error ? error.message : "error";
        if (!res.headersSent) res.writeHead(status, { "Content-Type": "text/plain" });
        res.end(status === 500 ? "internal error" : message);
        if (status === 500) options.log?.(`http: ${message}`);
      });
    });
  }

  static async start(options: McpHttpOptions): Promise<McpHttpServer> {
    const server = new McpHttpServer(options);
    await new Promise<void>((resolve, reject) => {
      server.server.once("error", reject);
      server.server.listen(options.port, "127.0.0.1", () => resolve());
    });
    server.port = (server.server.address() as AddressInfo).port;
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  private check(req: http.IncomingMessage): void {
    const allowed = [`127.0.0.1:${this.port}`, `localhost:${this.port}`];
    if (!allowed.includes(req.headers.host ?? "")) {
      this.options.onRefused?.("HTTP request with a foreign Host header");
      throw new HttpRefusal(421, "wrong host");
    }
    if (req.headers.origin !== undefined) {
      this.options.onRefused?.(
        `HTTP request from a web page (${req.headers.origin.slice(0, HOST_LIMITS.httpOriginShownMaxChars)})`,
      );
      throw new HttpRefusal(403, "requests from web pages are not accepted");
    }
    const auth = req.headers.authorization ?? "";
    const presented = auth.startsWith("Bearer ") ? auth.slice("Bearer ".length) : "";
    if (!presented || !tokensEqual(presented, this.options.token)) {
      this.options.onRefused?.("HTTP request without the right bearer token");
      throw new HttpRefusal(401, "a bearer token is required");
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.check(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/mcp") return this.handleStreamable(req, res);
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      this.sse.set(transport.sessionId, transport);
      this.touch(transport.sessionId);
      await this.options.sessions.attach(transport, "http", () =>
        this.sse.delete(transport.sessionId),
      );
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = this.sse.get(url.searchParams.get("sessionId") ?? "");
      if (!transport) throw new HttpRefusal(404, "unknown session");
      this.touch(transport.sessionId);
      await transport.handlePostMessage(req, res, await readJson(req));
      return;
    }
    throw new HttpRefusal(404, "not found");
  }

  private async handleStreamable(
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<void> {
    const sessionId = req.headers["mcp-session-id"];
    const existing = typeof sessionId === "string" ? this.streamable.get(sessionId) : undefined;
    if (existing) this.touch(existing.sessionId);
    if (req.method === "POST") {
      const body = await readJson(req);
      if (existing) return existing.handleRequest(req, res, body);
      if (sessionId !== undefined || !isInitializeRequest(body)) {
        throw new HttpRefusal(400, "no session: start with an initialize request");
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.streamable.set(id, transport);
          this.touch(id);
        },
      });
      await this.options.sessions.attach(transport, "http", () => {
        if (transport.sessionId) {
          this.streamable.delete(transport.sessionId);
          this.lastSeen.delete(transport.sessionId);
        }
      });
      return transport.handleRequest(req, res, body);
    }
    if (!existing) throw new HttpRefusal(404, "unknown session");
    return existing.handleRequest(req, res);
  }

  private touch(sessionId: string | undefined): void {
    if (sessionId) this.lastSeen.set(sessionId, Date.now());
  }

  /** Ends sessions unused for longer than the idle limit (their runs are cancelled). */
  closeIdle(now = Date.now()): void {
    for (const [id, seen] of this.lastSeen) {
      if (now - seen < HOST_LIMITS.httpSessionIdleMs) continue;
      this.lastSeen.delete(id);
      void (this.streamable.get(id) ?? this.sse.get(id))?.close();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled(
      [...this.streamable.values(), ...this.sse.values()].map((t) => t.close()),
    );
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
