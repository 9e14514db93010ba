// A client with the token cannot grow the host without bound through MCP over HTTP: every
// initialize used to open a session (an MCP server object each, ~70 KB) kept until it went
// idle for 30 minutes, so a loop of initialize requests (~170 a second from one process) took
// the host's memory until it died. Now at most HTTP_SESSIONS_MAX are open at once; a
// new one past it is refused with 503 until one closes. A real host on a real port.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../api/api-dispatcher.js";
import { CodeModeHost } from "../../app/code-mode-host.js";
import { freePort } from "../../../../test-support/free-port.js";
import { startHostWithoutDocker } from "../../../../test-support/daemon.js";
import { HTTP_SESSIONS_MAX } from "./mcp-http-server.js";

describe("MCP over HTTP under a flood of sessions", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-http-sessions-"));
  let host: CodeModeHost;
  let url: string;
  let headers: Record<string, string>;

  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "flood", version: "1" },
    },
  });
  /** Opens a session as a client would; its id, or the refusal's status and body. */
  const open = async (): Promise<{ status: number; session: string | null; body: string }> => {
    const reply = await fetch(url, { method: "POST", headers, body: initialize });
    const body = await reply.text();
    return { status: reply.status, session: reply.headers.get("mcp-session-id"), body };
  };

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
    const saved = await dispatchApi(host.api, "settings.save", {
      httpEnabled: true,
      httpPort: await freePort(),
    });
    expect(saved.ok).toBe(true);
    url = host.httpUrl ?? "";
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    };
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const clientsTotal = async (): Promise<number> => {
    const page = await dispatchApi(host.api, "clients.list", {});
    return page.ok ? page.value.total : -1;
  };

  it("keeps nothing of an initialize the transport refuses (no session opened, none left attached)", async () => {
    // Without text/event-stream in Accept the SDK's transport answers 406 and opens no session;
    // the client it had been attached to stayed, never swept: a leak past any session limit.
    const before = await clientsTotal();
    const refused = await Promise.all(
      Array.from({ length: HTTP_SESSIONS_MAX + 10 }, () =>
        fetch(url, {
          method: "POST",
          headers: { ...headers, Accept: "application/json" },
          body: initialize,
        }).then(async (reply) => {
          await reply.text();
          return reply.status;
        }),
      ),
    );
    expect(new Set(refused)).toEqual(new Set([406]));
    await expect.poll(clientsTotal, { timeout: 5_000 }).toBe(before);
  });

  it("opens up to its limit of sessions, refuses the next with 503, and opens one again once one closes", async () => {
    const sessions: string[] = [];
    // In batches, as a flooding client would send them at once.
    for (let i = 0; i < HTTP_SESSIONS_MAX; i += 20) {
      const batch = Math.min(20, HTTP_SESSIONS_MAX - i);
      for (const reply of await Promise.all(Array.from({ length: batch }, open))) {
        expect(reply.status).toBe(200);
        sessions.push(reply.session ?? "");
      }
    }
    const over = await open();
    expect(over.status).toBe(503);
    expect(over.session).toBeNull();
    const refusal = JSON.parse(over.body) as { error?: { message?: string } };
    expect(refusal.error?.message).toContain(`${HTTP_SESSIONS_MAX} sessions`);

    // A client that ends its session makes room for another.
    const ended = await fetch(url, {
      method: "DELETE",
      headers: { ...headers, "mcp-session-id": sessions[0] ?? "" },
    });
    expect(ended.status).toBe(200);
    await expect.poll(async () => (await open()).status, { timeout: 5_000 }).toBe(200);
  });
});
