// A client that starts Code Mode while one of its servers is slow to start (a first `npx`
// download, a server that waits on something): the real `codemode shim` under the SDK's
// Client starts the real `codemode daemon` of this checkout, whose config holds a fast toy
// server and one that takes longer than the shim waits for the app. Before, the daemon took
// clients only once every server had started, and the shim gave up after its 10 s.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  pidAlive,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import { until } from "../test-support/wait.js";
import { SHIM_START_WAIT_MS } from "../electron/host/shim/shim.js";
import { SERVER_STARTUP_WAIT_MS } from "../electron/host/app/host-options.js";
import { listsTool } from "../test-support/described-tools.js";

/** Longer than the shim waits for the app it started. */
const SLOW_START_MS = SHIM_START_WAIT_MS + 5_000;

beforeAll(() => {
  assertHostBuilt();
});

describe("a server slow to start when a client starts the app", () => {
  let home = "";

  afterAll(async () => {
    // The daemon the shim started, also when the shim gave up on it (the test failed).
    const lockFile = path.join(home, "host.lock");
    const lock = home !== "" && existsSync(lockFile) ? readFileSync(lockFile, "utf8") : "";
    const daemonPid = Number(/\d+/.exec(lock)?.[0] ?? 0);
    if (daemonPid > 0) {
      try {
        process.kill(daemonPid, "SIGTERM");
      } catch {
        // Already gone.
      }
      await until(() => !pidAlive(daemonPid), "the daemon to stop", 20_000);
    }
    await cleanUpHosts();
  });

  it(
    "the client connects with the servers up so far, and the slow one's tools follow with list_changed",
    async () => {
      home = makeHome("codemode-slowstart-");
      writeServers(home, {
        fast: toyServer(),
        slow: toyServer({ env: { TOY_START_DELAY_MS: String(SLOW_START_MS) } }),
      });
      const startedAt = Date.now();
      // No CODEMODE_APP: the shim starts `codemode daemon` of this built checkout.
      const shim = await connectShim(home, undefined, { env: { CODEMODE_APP: "" } });
      // The daemon waited for its servers at most SERVER_STARTUP_WAIT_MS.
      expect(Date.now() - startedAt).toBeLessThan(SHIM_START_WAIT_MS);
      const first = await shim.description();
      expect(listsTool(first, "fast", "add")).toBe(true);
      expect(listsTool(first, "slow", "add")).toBe(false);

      const seen = shim.listChangedCount();
      await until(
        async () => listsTool(await shim.description(), "slow", "add"),
        "the slow server's tools in the description",
        SLOW_START_MS + SERVER_STARTUP_WAIT_MS,
      );
      expect(shim.listChangedCount()).toBeGreaterThan(seen);
      await shim.close();
    },
    SLOW_START_MS + 60_000,
  );
});
