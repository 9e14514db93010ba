import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { bearerToken, tokensEqual } from "../local-access/token.js";
import { ConnectionCap } from "../../util/connection-cap.js";
import type { ClientSessions } from "../mcp/client-sessions.js";
import { ConnectionCapLog } from "../../audit/flood/connection-cap-log.js";
import type { AuditEntryInput } from "../../../../shared/audit-entry.js";
import { MiB } from "../../util/units.js";

/** Largest JSON-RPC body accepted over HTTP (run_python's code is at most 256 KiB). */
export const HTTP_BODY_MAX_BYTES = 4 * MiB;

/** A web page's Origin, quoted in the refusal the audit log records, is cut to this. */
export const HTTP_ORIGIN_SHOWN_MAX_CHARS = 100;

/** An MCP-over-HTTP session unused this long is closed (HTTP clients can just vanish). */
export const HTTP_SESSION_IDLE_MS = 30 * 60_000;

/**
 * MCP-over-HTTP sessions open at once (Streamable HTTP and SSE together); a new one past it
 * is refused (503) until one closes or goes idle. Each holds an MCP server object (~70 KB):
 * unbounded, a client sending initialize in a loop grew the host by ~12 MB a second, kept
 * for the idle time, until it ran out of memory.
 */
export const HTTP_SESSIONS_MAX = 100;

/** How often idle HTTP sessions are looked for. */
export const HTTP_SESSION_SWEEP_MS = 60_000;

export interface McpHttpOptions {
  sessions: ClientSessions;
  port: number;
  token: string;
  onRefused?: (reason: string) => void;
  /** Where the connection cap's entries go (connections_capped, connections_uncapped). */
  record?: (entry: AuditEntryInput) => void;
  log?: (line: string) => void;
}

/** JSON-RPC error codes the HTTP layer answers with (the SDK's own for a missing session). */
export const HTTP_RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  /** Refusals with no JSON-RPC meaning of their own: token, host, origin, size, path. */
  refused: -32000,
  /** What the SDK's own transport answers for a session it does not know. */
  sessionNotFound: -32001,
  internal: -32603,
} as const;

class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly rpcCode: number = HTTP_RPC_ERRORS.refused,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The body of every refusal: a JSON-RPC error, so a client can show what went wrong. */
function sendRefusal(res: http.ServerResponse, refusal: HttpRefusal): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(refusal.status, { "Content-Type": "application/json", ...refusal.headers });
  res.end(
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: refusal.rpcCode, message: refusal.message },
    }),
  );
}

/** The paths that speak MCP; every other path is 404, before the token is even looked at. */
const MCP_PATHS = new Set(["/mcp", "/sse", "/messages"]);

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > HTTP_BODY_MAX_BYTES) {
      throw new HttpRefusal(
        413,
        `request body is larger than ${HTTP_BODY_MAX_BYTES} bytes`,
        HTTP_RPC_ERRORS.invalidRequest,
      );
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpRefusal(
      400,
      "Parse error: the request body is not JSON",
      HTTP_RPC_ERRORS.parseError,
    );
  }
}

function tooManySessions(): HttpRefusal {
  return new HttpRefusal(
    503,
    `too many open sessions (${HTTP_SESSIONS_MAX} sessions at most): end one ` +
      `(DELETE with its mcp-session-id) or retry once an idle one has been closed`,
    HTTP_RPC_ERRORS.refused,
    { "Retry-After": String(Math.ceil(HTTP_SESSION_SWEEP_MS / 1000)) },
  );
}

function unknownSession(): HttpRefusal {
  return new HttpRefusal(
    404,
    "Session not found: it expired or Code Mode restarted; send a new initialize request",
    HTTP_RPC_ERRORS.sessionNotFound,
  );
}

/**
 * MCP over HTTP for clients that cannot start the shim: Streamable HTTP on /mcp and the
 * legacy SSE transport on /sse + /messages. 127.0.0.1 only, the Host header must name
 * this address (DNS rebinding), a request from a web page's origin is refused, and every
 * request must carry the install's token as a bearer token. No CORS headers are sent.
 */
export class McpHttpServer {
  private readonly server: http.Server;
  private readonly cap: ConnectionCap;
  private readonly streamable = new Map<string, StreamableHTTPServerTransport>();
  private readonly sse = new Map<string, SSEServerTransport>();
  /** When each session was last used: HTTP clients can vanish without closing anything. */
  private readonly lastSeen = new Map<string, number>();
  /** Sessions being opened: attached, not yet in `streamable` (an initialize in progress). */
  private opening = 0;
  private readonly sweeper: NodeJS.Timeout;
  private port = 0;

  private constructor(private readonly options: McpHttpOptions) {
    this.sweeper = setInterval(() => this.closeIdle(), HTTP_SESSION_SWEEP_MS);
    this.sweeper.unref();
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (error instanceof HttpRefusal) {
          sendRefusal(res, error);
          return;
        }
        options.log?.(`http: ${error instanceof Error ? error.message : String(error)}`);
        sendRefusal(res, new HttpRefusal(500, "internal error", HTTP_RPC_ERRORS.internal));
      });
    });
    // Before any token is seen: anyone on this machine can open connections to the port.
    this.cap = new ConnectionCap(
      this.server,
      HOST_LIMITS.httpConnectionsMax,
      options.record ? new ConnectionCapLog("mcp_http", options.record) : undefined,
    );
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

  /** The token requests must carry, for the Clients page's ready-made entries. */
  get bearerToken(): string {
    return this.options.token;
  }

  /** Host and Origin: who may talk to us at all (DNS rebinding, web pages). */
  private checkOrigin(req: http.IncomingMessage): void {
    const own = [`127.0.0.1:${this.port}`, `localhost:${this.port}`];
    if (!own.includes(req.headers.host ?? "")) {
      this.options.onRefused?.("HTTP request with a foreign Host header");
      throw new HttpRefusal(421, "wrong Host header: this server answers only on loopback");
    }
    // Our own loopback origins serve no page, so only a foreign origin is a web page.
    const origin = req.headers.origin;
    if (origin !== undefined && !own.some((hostPort) => origin === `http://${hostPort}`)) {
      this.options.onRefused?.(
        `HTTP request from a web page (${origin.slice(0, HTTP_ORIGIN_SHOWN_MAX_CHARS)})`,
      );
      throw new HttpRefusal(403, "requests from web pages are not accepted");
    }
  }

  private checkToken(req: http.IncomingMessage): void {
    const presented = bearerToken(req.headers.authorization);
    if (presented === undefined || !tokensEqual(presented, this.options.token)) {
      this.options.onRefused?.("HTTP request without the right bearer token");
      // A plain Bearer challenge with no resource metadata: the token is fixed, there is
      // no OAuth flow to start, and the discovery paths answer 404.
      throw new HttpRefusal(
        401,
        presented
          ? "wrong bearer token: send the header Authorization: Bearer <token>, with the token shown on Code Mode's Clients page"
          : "missing bearer token: send the header Authorization: Bearer <token>, with the token shown on Code Mode's Clients page",
        HTTP_RPC_ERRORS.refused,
        { "WWW-Authenticate": 'Bearer realm="codemode"' },
      );
    }
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.checkOrigin(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    // OAuth discovery (/.well-known/oauth-*) and any other path: not here, token or not.
    if (!MCP_PATHS.has(url.pathname)) {
      throw new HttpRefusal(404, `not found: MCP is served on /mcp (and legacy SSE on /sse)`);
    }
    this.checkToken(req);
    this.cap.trust(req.socket);
    if (url.pathname === "/mcp") return this.handleStreamable(req, res);
    if (url.pathname === "/sse" && req.method === "GET") {
      this.checkRoom();
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
      if (!transport) {
        throw new HttpRefusal(
          404,
          "Session not found: connect to /sse again",
          HTTP_RPC_ERRORS.sessionNotFound,
        );
      }
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
      // An unknown or expired session (after a restart or the idle sweep) is 404, so the
      // client starts a new session; no session at all is 400 (the spec's two answers).
      if (sessionId !== undefined) throw unknownSession();
      if (!isInitializeRequest(body)) {
        throw new HttpRefusal(
          400,
          "Bad Request: no mcp-session-id header: start with an initialize request",
          HTTP_RPC_ERRORS.invalidRequest,
        );
      }
      this.checkRoom();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.streamable.set(id, transport);
          this.touch(id);
        },
      });
      // Counted from here, so initializes sent at once cannot all pass the check above.
      this.opening++;
      try {
        await this.options.sessions.attach(transport, "http", () => {
          if (transport.sessionId) {
            this.streamable.delete(transport.sessionId);
            this.lastSeen.delete(transport.sessionId);
          }
        });
        await transport.handleRequest(req, res, body);
      } finally {
        this.opening--;
      }
      // An initialize the transport refused opened no session: nothing may keep it attached.
      if (transport.sessionId === undefined || !this.streamable.has(transport.sessionId)) {
        await transport.close();
      }
      return;
    }
    if (!existing) {
      if (sessionId === undefined) {
        throw new HttpRefusal(
          400,
          "Bad Request: no mcp-session-id header",
          HTTP_RPC_ERRORS.invalidRequest,
        );
      }
      throw unknownSession();
    }
    return existing.handleRequest(req, res);
  }

  /** Refuses a new session while HTTP_SESSIONS_MAX are open or opening. */
  private checkRoom(): void {
    if (this.streamable.size + this.sse.size + this.opening < HTTP_SESSIONS_MAX) return;
    this.options.onRefused?.(
      `HTTP session refused: ${HTTP_SESSIONS_MAX} sessions were open already`,
    );
    throw tooManySessions();
  }

  private touch(sessionId: string | undefined): void {
    if (sessionId) this.lastSeen.set(sessionId, Date.now());
  }

  /** Ends sessions unused for longer than the idle limit (their runs are cancelled). */
  closeIdle(now = Date.now()): void {
    for (const [id, seen] of this.lastSeen) {
      if (now - seen < HTTP_SESSION_IDLE_MS) continue;
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
