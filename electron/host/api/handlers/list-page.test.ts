import { describe, expect, it } from "vitest";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { ClientView, ServerView, TaintView } from "../../../../shared/api/api-views.js";
import { pagesFrom } from "../../../../shared/api/list-pages.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { dispatchApi } from "../api-dispatcher.js";
import { clientsHandlers } from "./clients-handlers.js";
import { listPage, pageOf, serverPage, LIST_PAGE_MAX_CHARS } from "./list-page.js";
import { taintHandlers } from "./taint-handlers.js";

const MiB = 1024 * 1024;

/** `count` failed servers, each with long args and a full stderr tail (~80 K characters). */
function bigServers(count: number): ServerView[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `s${i}`,
    command: "node",
    args: ["a".repeat(40_000)],
    env: [],
    allow: null,
    private: false,
    ask: false,
    status: i % 2 === 0 ? "failed" : "ready",
    lastError: "exited",
    stderrTail: Array.from({ length: 40 }, () => "e".repeat(1_000)),
    restarting: false,
    toolCount: 0,
    // Every tenth server holds 3 tools for review.
    held: i % 10 === 0 ? 3 : 0,
  }));
}

const clients = (count: number): ClientView[] =>
  Array.from({ length: count }, (_, i) => ({
    connectionId: `c${i}`,
    name: `client-${i}`,
    version: "1",
    transport: "socket",
    since: "2026-01-01T00:00:00.000Z",
    runs: 0,
    running: 0,
  }));

const taint = (count: number): TaintView[] =>
  Array.from({ length: count }, (_, i) => ({
    client: `client-${i}`,
    server: "s",
    tool: "t",
    pyName: "t",
    at: "2026-01-01T00:00:00.000Z",
  }));

/** Handlers whose servers.list answers from `all`, whole (as before) or in pages. */
const servingServers = (all: ServerView[], paged: boolean): ApiHandlers =>
  new Proxy({} as ApiHandlers, {
    get: () => (params: { after?: number; limit?: number }) =>
      paged ? serverPage(all, params) : all,
  });

describe("servers.list, clients.list and taint.list pages", () => {
  // 250 servers of ~80 K characters: ~20 Mi in all, past API_LIMITS.responseMaxChars (16 Mi).
  const servers = bigServers(250);

  it("a server list past the reply cap was a too_large error when sent whole", async () => {
    const whole = await dispatchApi(servingServers(servers, false), "servers.list", {});
    expect(whole).toMatchObject({ ok: false, error: { code: "too_large" } });
  });

  it("comes in pages each under the page budget, together every server, with the failed count", async () => {
    const handlers = servingServers(servers, true);
    const sizes: number[] = [];
    const first = await dispatchApi(handlers, "servers.list", {});
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    // Counts of the whole list, which the first page carries (the sidebar, the held summary).
    expect(first.value).toMatchObject({ total: 250, failed: 125, held: 75 });
    expect(first.value.next).not.toBeNull();
    const rest = await pagesFrom(
      async ({ after }) => {
        const page = await dispatchApi(handlers, "servers.list", { after });
        if (page.ok) sizes.push(JSON.stringify(page.value).length);
        return page;
      },
      first.value.next ?? 0,
      Number.MAX_SAFE_INTEGER,
    );
    const names = [...first.value.items, ...(rest.ok ? rest.value.items : [])].map((s) => s.name);
    expect(names).toEqual(servers.map((s) => s.name));
    expect(sizes.length).toBeGreaterThan(1);
    // A page ends just past its char budget: at most one server over it.
    for (const size of sizes) expect(size).toBeLessThan(LIST_PAGE_MAX_CHARS + 0.1 * MiB);
  });

  it("ends a page at the list's own limit, and takes a smaller one", async () => {
    const handlers = clientsHandlers({
      sessions: { list: () => clients(250) },
      shimLaunch: { command: "node", args: [], env: {} },
      mcpHttp: () => null,
    }) as ApiHandlers;
    const first = await dispatchApi(handlers, "clients.list", {});
    expect(first).toMatchObject({
      ok: true,
      value: { total: 250, next: API_LIMITS.clientsPageMaxLimit },
    });
    const small = await dispatchApi(handlers, "clients.list", { after: 240, limit: 5 });
    expect(small.ok ? small.value.items.map((c) => c.name) : small).toEqual(
      ["240", "241", "242", "243", "244"].map((n) => `client-${n}`),
    );
    const last = await dispatchApi(handlers, "clients.list", { after: 245 });
    expect(last).toMatchObject({ ok: true, value: { next: null } });
    expect(last.ok ? last.value.items : []).toHaveLength(5);
    const past = await dispatchApi(handlers, "clients.list", { after: Number.MAX_SAFE_INTEGER });
    expect(past).toEqual({ ok: true, value: { items: [], total: 250, next: null } });
  });

  it("refuses a limit over the cap or a negative start, naming the field", async () => {
    const handlers = taintHandlers({ taint: { reset: () => true }, taintViews: () => taint(3) });
    const over = await dispatchApi(handlers as ApiHandlers, "taint.list", {
      limit: API_LIMITS.taintPageMaxLimit + 1,
    });
    expect(over).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(over.ok ? "" : over.error.message).toContain("limit");
    const negative = await dispatchApi(handlers as ApiHandlers, "servers.list", { after: -1 });
    expect(negative.ok ? "" : negative.error.message).toContain("after");
  });

  it("taint.reset answers with the first page, not the whole list", async () => {
    const handlers = taintHandlers({ taint: { reset: () => true }, taintViews: () => taint(500) });
    const reset = await dispatchApi(handlers as ApiHandlers, "taint.reset", { client: "client-1" });
    expect(reset.ok ? reset.value.items : reset).toHaveLength(API_LIMITS.taintPageMaxLimit);
    expect(reset).toMatchObject({ ok: true, value: { total: 500 } });
  });

  it("a page always holds one item, so a list of items each over the budget still moves on", () => {
    expect(listPage(["x".repeat(100), "y".repeat(100)], 0, 10, 50)).toEqual({
      items: ["x".repeat(100)],
      total: 2,
      next: 1,
    });
    expect(pageOf([1, 2, 3], 2, { limit: 99 })).toEqual({ items: [1, 2], total: 3, next: 2 });
  });

  it("a client asks for at most the pages it wants, and stops when the cursor does not move", async () => {
    let asked = 0;
    const counting = (after: number) => {
      asked += 1;
      return Promise.resolve({
        ok: true as const,
        value: { items: [after], total: 1000, next: after + 1 },
      });
    };
    const some = await pagesFrom(({ after }) => counting(after), 10, 3);
    expect(some).toEqual({ ok: true, value: { items: [10, 11, 12], next: 13 } });
    expect(asked).toBe(3);
    const stuck = await pagesFrom(
      () => Promise.resolve({ ok: true, value: { items: [1], total: 9, next: 0 } }),
      0,
      5,
    );
    expect(stuck).toMatchObject({ ok: false, error: { code: "internal" } });
  });
});
