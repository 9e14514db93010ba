import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../electron/host/api/api-dispatcher.js";
import { CodeModeHost } from "../electron/host/host/code-mode-host.js";
import { HOST_LIMITS } from "../shared/limits.js";
import { dockerOrSkip } from "../test-support/docker.js";

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
    expect(result.structuredContent).toMatchObject({ stdout: "42\n", error: null });
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

  it("refuses a missing or wrong token, a foreign Host and any web page Origin, and logs it", async () => {
    expect(await rawRequest(url, {})).toBe(401);
    expect(await rawRequest(url, { Authorization: "Bearer nope" })).toBe(401);
    expect(
      await rawRequest(url, { Authorization: `Bearer ${token}`, Host: "evil.example:17717" }),
    ).toBe(421);
    expect(
      await rawRequest(url, { Authorization: `Bearer ${token}`, Origin: "http://evil.example" }),
    ).toBe(403);
    await new Promise((r) => setTimeout(r, 200));
    const refused = await dispatchApi(host.api, "audit.query", {
      filter: { kinds: ["auth_refused"] },
      limit: 10,
    });
    expect(refused.ok && refused.value.entries.length).toBe(4);
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
    expect(listed.ok && listed.value.some((c) => c.name === "idle-client")).toBe(true);
    host.mcpHttp!.closeIdle(Date.now() + HOST_LIMITS.httpSessionIdleMs + 1);
    await expect(client.listTools()).rejects.toThrow();
    const after = await dispatchApi(host.api, "clients.list", {});
    expect(after.ok && after.value.some((c) => c.name === "idle-client")).toBe(false);
    await client.close().catch(() => undefined);
  });
});
