// servers.try and servers.tryBundle share one cap on tries running at once, across the app's
// window and the browser UI: each starts a process, so two of each must not make four. The try
// itself is a stand-in held open.
import { describe, expect, it, vi } from "vitest";
import { tryHandlers, tryServices } from "./try-handlers.js";
import type { TryAudit } from "./try-log.js";
import { TRY_CONCURRENT_MAX } from "./try-count.js";

const held = vi.hoisted(() => ({ release: [] as (() => void)[] }));

vi.mock("../../servers/try-server.js", () => ({
  tryServer: () =>
    new Promise((resolve) =>
      held.release.push(() => resolve({ ok: true, toolCount: 0, tools: [] })),
    ),
}));

describe("tries running at once", () => {
  it("counts servers.try and servers.tryBundle together, in the app and the browser", async () => {
    const configStore = { current: { servers: new Map() } };
    const audit = {
      failure: null,
      health: { probe: () => Promise.resolve(true) },
      record: () => undefined,
      durable: () => Promise.resolve(),
    } as unknown as TryAudit;
    const services = tryServices(
      { configStore, serverPath: { path: "" }, dataDir: "", pendingBundles: new Set() } as never,
      audit,
    );
    const app = tryHandlers(services, "app");
    const browser = tryHandlers(services, "browser");
    const running = Array.from({ length: TRY_CONCURRENT_MAX }, (_, i) =>
      Promise.resolve(
        (i % 2 === 0 ? app : browser)["servers.try"]({
          name: `s${i}`,
          entry: { command: "node", args: [] },
        }),
      ),
    );
    await vi.waitFor(() => expect(held.release).toHaveLength(TRY_CONCURRENT_MAX));
    for (const handlers of [app, browser]) {
      await expect(
        Promise.resolve(handlers["servers.tryBundle"]({ name: "b", bundle: "", values: {} })),
      ).rejects.toMatchObject({ code: "unavailable" });
    }
    for (const release of held.release) release();
    await Promise.all(running);
  });
});
