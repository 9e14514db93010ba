import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../../../electron/host/api/api-dispatcher.js";
import { CodeModeHost } from "../../../../electron/host/app/code-mode-host.js";
import { allToolPages } from "../../../../shared/api/tool-pages.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { TOY_SERVER_UNIT_JS } from "../../../../test-support/toy-build.js";
import { until } from "../../../../test-support/wait.js";
import { startHostWithoutDocker } from "../../../../test-support/daemon.js";

// A real server whose tool list (24 tools of 1 Mi characters) is larger than one
// API reply may be. No Docker needed: this is about the Servers page's tool list.
const FLOOD = 24;

describe("servers.tools of a server with a huge tool list", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-tool-pages-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
    const saved = await dispatchApi(host.api, "servers.upsert", {
      name: "flood",
      entry: {
        command: process.execPath,
        args: [TOY_SERVER_UNIT_JS],
        env: { TOY_FLOOD_TOOLS: `${FLOOD}:${1024 * 1024}`, TOY_PAGE_SIZE: "4" },
      },
    });
    expect(saved.ok).toBe(true);
    await until(
      () => host.serverViews().find((s) => s.name === "flood")?.status === "ready",
      "flood ready",
    );
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("comes in pages each under the reply cap, together every tool the server lists", async () => {
    const listed = host.servers.get("flood")?.tools?.map((t) => t.name) ?? [];
    expect(listed.filter((n) => n.startsWith("flood_"))).toHaveLength(FLOOD);
    const sizes: number[] = [];
    const all = await allToolPages(async (params) => {
      const page = await dispatchApi(host.api, "servers.tools", params);
      sizes.push(page.ok ? JSON.stringify(page.value).length : -1);
      return page;
    }, "flood");
    expect(all.ok ? all.value.map((t) => t.name) : all.error).toEqual(listed);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThan(API_LIMITS.responseMaxChars);
  });

  it("switching one of its tools answers with that tool alone", async () => {
    const changed = await dispatchApi(host.api, "servers.setToolPolicy", {
      name: "flood",
      tool: "flood_3",
      private: true,
    });
    expect(changed).toMatchObject({ ok: true, value: { name: "flood_3", private: true } });
  });
});
