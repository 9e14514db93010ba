// The app's start while Docker is slow to answer and a server is slow to start: a shim that
// starts the app waits SHIM_START_WAIT_MS for it, so the two waits must not
// add up. No Docker needed: the Docker lookup is a stand-in that takes its time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../../../test-support/toy-build.js";
import { CodeModeHost } from "./code-mode-host.js";
import { SHIM_START_WAIT_MS } from "../shim/shim.js";
import { SERVER_STARTUP_WAIT_MS } from "./host-options.js";

/** An engine whose socket exists but that does not answer its version request in time. */
const DOCKER_SLOW_MS = 6_000;

describe("the app's start", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-startup-"));
  let host: CodeModeHost | null = null;

  afterAll(async () => {
    await host?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("waits for Docker and for its servers side by side, not one after the other", async () => {
    writeFileSync(
      path.join(home, "servers.json"),
      JSON.stringify({
        mcpServers: {
          slow: {
            command: process.execPath,
            args: [TOY_SERVER_UNIT_JS],
            env: { TOY_START_DELAY_MS: "20000" },
          },
        },
      }),
    );
    const startedAt = Date.now();
    host = await CodeModeHost.start({
      dataDir: home,
      version: "test",
      shimLaunch: { command: "node", args: [], env: {} },
      findDocker: () =>
        new Promise((resolve) =>
          setTimeout(
            () => resolve({ state: "not-running", tried: ["stand-in"], message: "no answer" }),
            DOCKER_SLOW_MS,
          ),
        ),
    });
    const took = Date.now() - startedAt;
    // Before, the servers started only once Docker had answered: 6 s, then the 5 s wait.
    expect(DOCKER_SLOW_MS + SERVER_STARTUP_WAIT_MS).toBeGreaterThan(SHIM_START_WAIT_MS);
    expect(took).toBeLessThan(DOCKER_SLOW_MS + 2_500);
    expect(host.servers.get("slow")?.status).toBe("starting");
  }, 60_000);
});
