// The app a shim starts logs to <data dir>/app.log, and when it does not come up the shim's
// message names the app it tried, whether it exists, that log and its last line. The real
// `codemode shim` under the SDK's Client, a real app that fails (a script that exits), a path
// that does not exist, and the real `codemode daemon` the shim starts from this checkout.

import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  pidAlive,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { SHIM_START_WAIT_MS } from "../electron/host/shim/shim.js";

/** What the failing app says before it exits: the line a user needs to see. */
const LAST_WORDS = "fake app: cannot read settings.json";

/** The shim's error (thrown by connectShim: the client's error, then the shim's stderr). */
async function shimFailure(home: string, app: string): Promise<string> {
  try {
    const shim = await connectShim(home, undefined, { env: { CODEMODE_APP: app } });
    await shim.close();
  } catch (error) {
    return String(error);
  }
  throw new Error("the shim connected, but no app should have answered");
}

beforeAll(() => {
  assertHostBuilt();
});

describe("the app the shim starts, and its log", () => {
  const started: number[] = [];

  afterAll(async () => {
    for (const pid of started) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await Promise.all(
      started.map((pid) => until(() => !pidAlive(pid), `daemon ${pid} to stop`, 20_000)),
    );
    await cleanUpHosts();
  });

  it(
    "an app that exits: the message names its path (it exists), the log file and its last line; a missing app: 'does not exist'",
    async () => {
      const failingHome = makeHome("codemode-applog-");
      const app = path.join(failingHome, "fake-app.sh");
      writeFileSync(app, `#!/bin/sh\necho "starting"\necho "${LAST_WORDS}" >&2\nexit 3\n`, {
        mode: 0o700,
      });
      const missingHome = makeHome("codemode-applog-");
      const missing = path.join(missingHome, "no-such-app");

      // Both wait out the shim's start wait: side by side, so the test waits once.
      const [failing, absent] = await Promise.all([
        shimFailure(failingHome, app),
        shimFailure(missingHome, missing),
      ]);

      const log = path.join(failingHome, "app.log");
      expect(readFileSync(log, "utf8")).toBe(`starting\n${LAST_WORDS}\n`);
      expect(failing).toContain(`but it did not answer within ${SHIM_START_WAIT_MS / 1000} s`);
      expect(failing).toContain(`Tried the app at ${app} (it exists).`);
      expect(failing).toContain(`Its output is in ${log}; its last line: "${LAST_WORDS}".`);

      expect(absent).toContain(`Tried the app at ${missing} (it does not exist).`);
      expect(absent).toContain(`Its output is in ${path.join(missingHome, "app.log")} (empty).`);
    },
    SHIM_START_WAIT_MS + 20_000,
  );

  it("the daemon the shim starts writes its output to app.log", async () => {
    const home = makeHome("codemode-applog-");
    // No CODEMODE_APP: the shim starts `codemode daemon` of this built checkout.
    const shim = await connectShim(home, undefined, { env: { CODEMODE_APP: "" } });
    const lock = readFileSync(path.join(home, "host.lock"), "utf8");
    const pid = Number(/\d+/.exec(lock)?.[0]);
    expect(pid).toBeGreaterThan(0);
    started.push(pid);
    expect(shim.stderr()).toContain(`its output goes to ${path.join(home, "app.log")}`);
    await until(
      () => readFileSync(path.join(home, "app.log"), "utf8").includes("codemode daemon: ready"),
      "the daemon to log that it is ready",
    );
    await shim.close();
  });
});
