import { describe, expect, it } from "vitest";
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { ToolView } from "../../../../shared/api/api-views.js";
import { allToolPages } from "../../../../shared/api/tool-pages.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { dispatchApi } from "../api-dispatcher.js";
import { toolPage, TOOLS_PAGE_MAX_CHARS } from "./tool-page.js";

/** A hostile server's list: `count` tools, each with a description of `chars` characters. */
function bigTools(count: number, chars: number): ToolView[] {
  return Array.from({ length: count }, (_, i) => ({
    server: "flood",
    name: `tool_${i}`,
    pyName: `tool_${i}`,
    description: String(i % 10).repeat(chars),
    inputSchema: { type: "object", properties: {} },
    allowed: true,
    private: false,
    ask: false,
    hideArgs: false,
    leftOut: null,
  }));
}

/** Handlers whose servers.tools answers from `all` as the host's handler does. */
const serving = (all: ToolView[], paged: boolean): ApiHandlers =>
  new Proxy({} as ApiHandlers, {
    get: () => (params: { after?: number; limit?: number }) =>
      paged ? toolPage(all, params.after, params.limit) : all,
  });

describe("servers.tools pages", () => {
  // 24 tools of 1 Mi characters: 24 Mi in all, past API_LIMITS.responseMaxChars (16 Mi).
  const all = bigTools(24, 1024 * 1024);

  it("a list past the reply cap was a too_large error when sent whole", async () => {
    const whole = await dispatchApi(serving(all, false), "servers.tools", { name: "flood" });
    expect(whole).toMatchObject({ ok: false, error: { code: "too_large" } });
  });

  it("comes in several pages, each under the cap, together every tool in order", async () => {
    const handlers = serving(all, true);
    const sizes: number[] = [];
    const joined = await allToolPages(async (params) => {
      const page = await dispatchApi(handlers, "servers.tools", params);
      if (page.ok) sizes.push(JSON.stringify(page.value).length);
      return page;
    }, "flood");
    expect(joined.ok).toBe(true);
    expect(joined.ok ? joined.value.map((t) => t.name) : []).toEqual(all.map((t) => t.name));
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(API_LIMITS.responseMaxChars);
    // A page ends just past its char budget: at most one tool over it.
    for (const size of sizes) expect(size).toBeLessThan(TOOLS_PAGE_MAX_CHARS + 1.1 * MiB);
  });

  it("ends a page at its limit, and at the char budget, with the next page's start", () => {
    const small = bigTools(5, 10);
    expect(toolPage(small, 0, 2)).toMatchObject({ next: 2 });
    expect(toolPage(small, 2, 2).tools.map((t) => t.name)).toEqual(["tool_2", "tool_3"]);
    expect(toolPage(small, 4, 2)).toMatchObject({ next: null });
    expect(toolPage(small, 9)).toEqual({ tools: [], next: null });
    // A single tool over the budget still makes a page of its own, so the list moves on.
    const page = toolPage(bigTools(3, 100), 0, 10, 50);
    expect(page).toMatchObject({ next: 1 });
    expect(page.tools).toHaveLength(1);
  });

  it("a client stops instead of looping when the cursor does not move on", async () => {
    const stuck = await allToolPages(
      () => Promise.resolve({ ok: true, value: { tools: [], next: 0 } }),
      "flood",
    );
    expect(stuck).toMatchObject({ ok: false, error: { code: "internal" } });
  });
});

const MiB = 1024 * 1024;
