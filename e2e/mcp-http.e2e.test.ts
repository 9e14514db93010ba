import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../electron/host/api/api-dispatcher.js";
import { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { runResultIn } from "../shared/run-result.js";
import { HTTP_SESSION_IDLE_MS } from "../electron/host/ingress/http/mcp-http-server.js";

const fx = await dockerOrSkip();

function rawRequest(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "Content-Type": "application/json", ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request as a client with no MCP library would send it. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: options.method ?? "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          ...options.headers,
        },
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** The JSON-RPC error a refusal carries: every refusal has one. */
function rpcError(reply: RawReply): { code: number; message: string } {
  expect(reply.headers["content-type"]).toBe("application/json");
  const parsed = JSON.parse(reply.body) as {
    jsonrpc: string;
    error: { code: number; message: string };
  };
  expect(parsed.jsonrpc).toBe("2.0");
  return parsed.error;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw-http", version: "1" },
  },
});

// Skipped only outside CI when no engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("MCP over HTTP (Streamable HTTP and SSE)", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-http-"));
  let host: CodeModeHost;
  let url: string;
  let token: string;

  beforeAll(async () => {
    host = await CodeModeHost.start({
      dataDir: home,
      version: "test",
      shimLaunch: { command: "node", args: ["codemode.js", "shim"], env: {} },
    });
    const info = await dispatchApi(host.api, "app.info", {});
    expect(info.ok && info.value.httpUrl).toBeNull();
    const saved = await dispatchApi(host.api, "settings.save", {
      httpEnabled: true,
      httpPort: 17_717,
    });
    expect(saved.ok).toBe(true);
    url = host.httpUrl!;
    token = readFileSync(path.join(home, "token"), "utf8").trim();
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("is off by default and listens on 127.0.0.1 only when turned on", () => {
    expect(url).toBe("http://127.0.0.1:17717/mcp");
  });

  it("a Streamable HTTP client with the bearer token runs code", async () => {
    const client = new Client({ name: "http-client", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({
      name: "run_python",
      arguments: { code: "print(6 * 7)" },
    });
    expect(runResultIn(result)).toMatchObject({ stdout: "42\n", error: null });
    await client.close();
  });

  it("a legacy SSE client with the bearer token lists run_python", async () => {
    const client = new Client({ name: "sse-client", version: "1" });
    const headers = { Authorization: `Bearer ${token}` };
    await client.connect(
      new SSEClientTransport(new URL("/sse", url), {
        requestInit: { headers },
        eventSourceInit: {
          fetch: (u, init) =>
            fetch(u, {
              ...init,
              headers: { ...(init?.headers as Record<string, string>), ...headers },
            }),
        },
      }),
    );
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(["run_python"]);
    await client.close();
  });

  it("matches the Bearer scheme without regard to case (RFC 7235)", async () => {
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      const client = new Client({ name: `case-${scheme}`, version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: `${scheme} ${token}` } },
        }),
      );
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(["run_python"]);
      await client.close();
    }
    // Still only the token: another scheme, or the token alone, is refused.
    expect(await rawRequest(url, { Authorization: `Basic ${token}` })).toBe(401);
    expect(await rawRequest(url, { Authorization: token })).toBe(401);
  });

  it("refuses a missing or wrong token, a foreign Host and any web page Origin, and logs it", async () => {
    expect(await rawRequest(url, {})).toBe(401);
    expect(await rawRequest(url, { Authorization: "Bearer nope" })).toBe(401);
    expect(
      await rawRequest(url, { Authorization: `Bearer ${token}`, Host: "evil.example:17717" }),
    ).toBe(421);
    expect(
      await rawRequest(url, { Authorization: `Bearer ${token}`, Origin: "http://evil.example" }),
    ).toBe(403);
    // Each refusal is recorded before its answer is sent, and written after: wait for the
    // writes, not for a fixed time that a loaded machine may outrun.
    await host.auditDurable();
    const refused = await dispatchApi(host.api, "audit.query", {
      filter: { kinds: ["auth_refused"] },
      limit: 10,
    });
    // These four, and the two of the case test above.
    expect(refused.ok && refused.value.entries.length).toBe(6);
  });

  it("answers a missing or wrong token with 401, a Bearer challenge and which header to send", async () => {
    const attempts: Record<string, string>[] = [{}, { Authorization: "Bearer nope" }];
    for (const headers of attempts) {
      const reply = await send(url, { headers, body: INITIALIZE });
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toMatch(/^Bearer /);
      const error = rpcError(reply);
      expect(error.message).toContain("Authorization: Bearer");
    }
  });

  it("answers OAuth discovery and every other unknown path with 404, token or not", async () => {
    const base = new URL(url).origin;
    for (const p of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
      "/register",
    ]) {
      const reply = await send(base + p, { method: "GET" });
      expect(reply.status, p).toBe(404);
      expect(rpcError(reply).message).toContain("/mcp");
    }
    const reply = await send(base + "/nope", { headers: { Authorization: `Bearer ${token}` } });
    expect(reply.status).toBe(404);
  });

  it("answers a body that is not JSON with -32700 and a Host or Origin refusal with a JSON-RPC error", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const parse = await send(url, { headers: auth, body: "{not json" });
    expect(parse.status).toBe(400);
    expect(rpcError(parse).code).toBe(-32700);
    const host = await send(url, { headers: { ...auth, Host: "evil.example:17717" }, body: "{}" });
    expect(host.status).toBe(421);
    expect(rpcError(host).message).toContain("Host");
    const origin = await send(url, {
      headers: { ...auth, Origin: "http://evil.example" },
      body: INITIALIZE,
    });
    expect(origin.status).toBe(403);
    expect(rpcError(origin).message).toContain("web pages");
  });

  it("answers a request on an unknown or expired session with 404, so the client starts anew", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    const reply = await send(url, {
      headers: { ...auth, "mcp-session-id": "3f1c2a7e-0000-4000-8000-000000000000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(reply.status).toBe(404);
    expect(rpcError(reply).code).toBe(-32001);
    const get = await send(url, {
      method: "GET",
      headers: { ...auth, "mcp-session-id": "3f1c2a7e-0000-4000-8000-000000000000" },
    });
    expect(get.status).toBe(404);
    // No session at all and not an initialize: that is the client's mistake, 400.
    const none = await send(url, {
      headers: auth,
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    });
    expect(none.status).toBe(400);
    expect(rpcError(none).code).toBe(-32600);
  });

  it("accepts the server's own loopback origins and refuses any other", async () => {
    const auth = { Authorization: `Bearer ${token}` };
    for (const origin of ["http://127.0.0.1:17717", "http://localhost:17717"]) {
      const reply = await send(url, { headers: { ...auth, Origin: origin }, body: INITIALIZE });
      expect(reply.status, origin).toBe(200);
    }
    for (const origin of ["http://127.0.0.1:1", "https://127.0.0.1:17717", "null"]) {
      const reply = await send(url, { headers: { ...auth, Origin: origin }, body: INITIALIZE });
      expect(reply.status, origin).toBe(403);
    }
  });

  it("answers tools/call for another tool or with non-object arguments with -32602 in one line", async () => {
    const client = new Client({ name: "params-client", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const unknown = await client
      .callTool({ name: "nope", arguments: {} })
      .catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).message).toContain('unknown tool "nope"');
    for (const args of [[1], "print(1)", null]) {
      const bad = await client
        .request(
          { method: "tools/call", params: { name: "run_python", arguments: args } },
          CallToolResultSchema,
        )
        .catch((error: unknown) => error);
      expect(bad).toBeInstanceOf(McpError);
      expect((bad as McpError).code).toBe(-32602);
      expect((bad as McpError).message).toMatch(
        /arguments must be an object, got (an array|a string|null)$/,
      );
      expect((bad as McpError).message).not.toContain("\n");
    }
    // Arguments a model can fix are still a tool error it sees.
    const empty = await client.callTool({ name: "run_python", arguments: { code: "" } });
    expect(empty.isError).toBe(true);
    await client.close();
  });

  it("sends no CORS headers", async () => {
    const res = await fetch(url, {
      method: "OPTIONS",
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("closes a session left idle past the limit, and the host forgets the client", async () => {
    const client = new Client({ name: "idle-client", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const listed = await dispatchApi(host.api, "clients.list", {});
    expect(listed.ok && listed.value.items.some((c) => c.name === "idle-client")).toBe(true);
    host.mcpHttp!.closeIdle(Date.now() + HTTP_SESSION_IDLE_MS + 1);
    await expect(client.listTools()).rejects.toThrow();
    const after = await dispatchApi(host.api, "clients.list", {});
    expect(after.ok && after.value.items.some((c) => c.name === "idle-client")).toBe(false);
    await client.close().catch(() => undefined);
  });
});
