// The app's start while the login shell, Docker and a server are all slow: a shim that starts
// the app waits SHIM_START_WAIT_MS for it, so the waits must not add up. No Docker needed: the
// Docker lookup is a stand-in that takes its time; the login shell is real bash.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../../../test-support/toy-build.js";
import { CodeModeHost } from "./code-mode-host.js";
import { SHIM_START_WAIT_MS } from "../shim/shim.js";
import { SERVER_STARTUP_WAIT_MS } from "./host-options.js";

/** An engine whose socket exists but that does not answer its version request in time. */
const DOCKER_SLOW_MS = 6_000;

/** A login profile that takes its time (nvm, conda, a pyenv rehash on a loaded machine). */
const PROFILE_SLOW_S = 4;

describe("the app's start", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-startup-"));
  let host: CodeModeHost | null = null;

  afterAll(async () => {
    await host?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("takes clients within SERVER_STARTUP_WAIT_MS of its start, the login shell's time included", async () => {
    const shellHome = path.join(home, "shell-home");
    mkdirSync(shellHome);
    writeFileSync(path.join(shellHome, ".bash_profile"), `sleep ${String(PROFILE_SLOW_S)}\n`);
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
      env: { ...process.env, HOME: shellHome, SHELL: "/bin/bash" },
      findDocker: () =>
        new Promise((resolve) =>
          setTimeout(
            () => resolve({ state: "not-running", tried: ["stand-in"], message: "no answer" }),
            DOCKER_SLOW_MS,
          ),
        ),
    });
    const took = Date.now() - startedAt;
    // Before, each wait began when the login shell was done: 4 s, then Docker's 6 s beside the
    // servers' 5 s, 10 s in all.
    expect(PROFILE_SLOW_S * 1000 + DOCKER_SLOW_MS).toBeGreaterThanOrEqual(SHIM_START_WAIT_MS);
    expect(took).toBeLessThan(SERVER_STARTUP_WAIT_MS + 3_000);
    expect(host.servers.get("slow")?.status).toBe("starting");
    // Docker is still being looked for: clients did not wait for it.
    expect(host.sandbox.dockerView().message).toBe("Docker has not been checked yet.");
  }, 60_000);
});
