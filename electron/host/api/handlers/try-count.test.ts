// servers.try and servers.tryBundle share one cap on tries running at once: each starts a
// process, so two of each must not make four. The try itself is a stand-in held open.
import { describe, expect, it, vi } from "vitest";
import { TRY_SERVER_LIMITS } from "../../../../shared/limits.js";
import { buildApiHandlers, type ApiServices } from "../api-handlers.js";

const held = vi.hoisted(() => ({ release: [] as (() => void)[] }));

vi.mock("../../servers/try-server.js", () => ({
  tryServer: () =>
    new Promise((resolve) => held.release.push(() => resolve({ ok: true, tools: [] }))),
}));

describe("tries running at once", () => {
  it("counts servers.try and servers.tryBundle together", async () => {
    const configStore = { current: { servers: new Map() } };
    const serverPath = { path: "" };
    const handlers = buildApiHandlers({
      // The other groups are not called here; only their construction needs an object.
      ...Object.fromEntries(
        ["sandbox", "config", "taint", "settings", "audit"].map((group) => [group, {}]),
      ),
      try: { configStore, serverPath },
      bundles: {
        configStore,
        serverPath,
        dataDir: "",
        pendingBundles: new Set(),
        serverViews: () => [],
      },
    } as unknown as ApiServices);
    const running = Array.from({ length: TRY_SERVER_LIMITS.concurrentMax }, (_, i) =>
      Promise.resolve(
        handlers["servers.try"]({ name: `s${i}`, entry: { command: "node", args: [] } }),
      ),
    );
    await vi.waitFor(() => expect(held.release).toHaveLength(TRY_SERVER_LIMITS.concurrentMax));
    await expect(
      Promise.resolve(handlers["servers.tryBundle"]({ name: "b", bundle: "", values: {} })),
    ).rejects.toMatchObject({ code: "unavailable" });
    for (const release of held.release) release();
    await Promise.all(running);
  });
});
