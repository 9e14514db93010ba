// A run that comes while the app is still looking for Docker. The app takes clients at most
// SERVER_STARTUP_WAIT_MS after its start began, before a slow engine has answered: such a run
// waits for that look instead of being refused with "Docker has not been found yet", and its
// start in the audit log names the engine it went to. A real host and the real engine; only the
// first look is held back until the run has come.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { auditEngineName } from "../electron/host/sandbox/container-engine/docker-view.js";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  homeContainers,
  hostEnv,
  makeHome,
} from "../test-support/daemon.js";
import { dockerOrSkip } from "../test-support/docker.js";

const fx = await dockerOrSkip();

beforeAll(() => {
  assertHostBuilt();
});

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("a run while the app still looks for Docker", () => {
  const home = makeHome("codemode-first-look-");
  let host: CodeModeHost | null = null;

  afterAll(async () => {
    await host?.stop();
    await cleanUpHosts(fx?.docker);
    if (fx) expect(await homeContainers(fx.docker, home)).toEqual([]);
  });

  it("waits for the look, runs, and its start names the engine", async () => {
    let answer = (): void => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let looks = 0;
    host = await CodeModeHost.start({
      dataDir: home,
      version: "0.0.0-test",
      shimLaunch: { command: process.execPath, args: [], env: {} },
      env: hostEnv(home),
      findDocker: async () => {
        looks++;
        if (looks === 1) await answered;
        return findDocker();
      },
    });
    // The start did not wait for the engine: clients are being taken.
    expect(host.sandbox.dockerView().message).toBe("Docker has not been checked yet.");
    const run = host.engine.run({ code: "print(6 * 7)" }, { client: "first-look" });
    answer();
    const result = await run;
    expect(result.error).toBeNull();
    expect(result.stdout.trim()).toBe("42");
    const started = auditEntries(home, "run_started", "first-look");
    expect(started).toHaveLength(1);
    expect(started[0]?.engine).toBeDefined();
    expect(started[0]?.engine).toBe(auditEngineName(host.sandbox.dockerView()));
  }, 60_000);
});
