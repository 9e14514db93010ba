import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiEvents } from "../../../../shared/api/api-contract.js";
import { pagesFrom } from "../../../../shared/api/list-pages.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { until } from "../../../../test-support/wait.js";
import { CodeModeHost } from "../../app/code-mode-host.js";
import { dispatchApi } from "../api-dispatcher.js";
import { startHostWithoutDocker } from "../../../../test-support/daemon.js";

// The server list, the connected clients and the clients in private-data mode are
// served in pages, and their changed events carry the first page, never the whole list. A real
// host with more of each than one page holds. No Docker needed.
const MANY = API_LIMITS.serversPageMaxLimit + 30;

type Paged = "servers.list" | "clients.list" | "taint.list";

describe("long lists: servers, clients, private-data mode", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-list-pages-"));
  let host: CodeModeHost;
  const clients: Client[] = [];
  const seen: { [E in "servers.changed" | "clients.changed" | "taint.changed"]: ApiEvents[E][] } = {
    "servers.changed": [],
    "clients.changed": [],
    "taint.changed": [],
  };

  /** Every item of a list, walked page by page through the API. */
  async function walk(channel: Paged): Promise<{ names: string[]; pages: number }> {
    let pages = 0;
    const all = await pagesFrom<unknown>(
      async ({ after }) => {
        pages += 1;
        const page = await dispatchApi(host.api, channel, { after });
        return page;
      },
      0,
      Number.MAX_SAFE_INTEGER,
    );
    if (!all.ok) throw new Error(all.error.message);
    const names = (all.value.items as { name?: string; client?: string }[]).map(
      (i) => i.name ?? i.client ?? "",
    );
    return { names, pages };
  }

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
    host.events.on("servers.changed", (p) => seen["servers.changed"].push(p));
    host.events.on("clients.changed", (p) => seen["clients.changed"].push(p));
    host.events.on("taint.changed", (p) => seen["taint.changed"].push(p));
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("a config of many servers: servers.list in pages, servers.changed the first page", async () => {
    // A command that is not there: each server fails at once, without starting a process.
    const servers = Object.fromEntries(
      Array.from({ length: MANY }, (_, i) => [
        `s${i}`,
        { command: path.join(home, "no-such-server"), args: [`${i}`] },
      ]),
    );
    const saved = await dispatchApi(host.api, "config.save", {
      json: JSON.stringify({ mcpServers: servers }),
    });
    expect(saved.ok ? saved.value.items.length : saved.error).toBe(API_LIMITS.serversPageMaxLimit);
    expect(saved).toMatchObject({ ok: true, value: { total: MANY } });
    await until(
      () => host.serverViews().every((s) => s.status === "failed"),
      "every server to fail",
      30_000,
    );
    const { names, pages } = await walk("servers.list");
    expect(names).toEqual(Object.keys(servers));
    expect(pages).toBe(2);
    const first = await dispatchApi(host.api, "servers.list", {});
    expect(first).toMatchObject({ ok: true, value: { failed: MANY, total: MANY } });
    expect(seen["servers.changed"].length).toBeGreaterThan(0);
    for (const page of seen["servers.changed"]) {
      expect(page.items.length).toBeLessThanOrEqual(API_LIMITS.serversPageMaxLimit);
    }
    expect(seen["servers.changed"].at(-1)).toMatchObject({
      total: MANY,
      next: API_LIMITS.serversPageMaxLimit,
    });
  }, 60_000);

  it("many clients connected: clients.list in pages, clients.changed the first page", async () => {
    for (let i = 0; i < MANY; i += 1) {
      const [clientSide, hostSide] = InMemoryTransport.createLinkedPair();
      await host.sessions.attach(hostSide, "socket");
      const client = new Client({ name: `client-${i}`, version: "1.0.0" });
      await client.connect(clientSide);
      clients.push(client);
    }
    await until(async () => {
      const page = await dispatchApi(host.api, "clients.list", {});
      return page.ok && page.value.total === MANY;
    }, "every client listed");
    const { names, pages } = await walk("clients.list");
    expect(names.sort()).toEqual(clients.map((_, i) => `client-${i}`).sort());
    expect(pages).toBe(2);
    for (const page of seen["clients.changed"]) {
      expect(page.items.length).toBeLessThanOrEqual(API_LIMITS.clientsPageMaxLimit);
    }
    // The last change reaches the UI once its interval is over (CLIENTS_CHANGED_MIN_INTERVAL_MS).
    await until(
      () => seen["clients.changed"].at(-1)?.total === MANY,
      "the last clients.changed lists every client",
    );
  }, 60_000);

  it("many clients in private-data mode: taint.list in pages, taint.changed the first page", async () => {
    for (let i = 0; i < MANY; i += 1) {
      host.taint.taint(`client-${i}`, { server: "s0", tool: "read", pyName: "read" });
    }
    const { names, pages } = await walk("taint.list");
    expect(names).toEqual(Array.from({ length: MANY }, (_, i) => `client-${i}`));
    expect(pages).toBe(2);
    for (const page of seen["taint.changed"]) {
      expect(page.items.length).toBeLessThanOrEqual(API_LIMITS.taintPageMaxLimit);
    }
    expect(seen["taint.changed"].at(-1)).toMatchObject({
      total: MANY,
      next: API_LIMITS.taintPageMaxLimit,
    });
    const reset = await dispatchApi(host.api, "taint.reset", { client: "client-0" });
    expect(reset).toMatchObject({ ok: true, value: { total: MANY - 1 } });
  });
});
