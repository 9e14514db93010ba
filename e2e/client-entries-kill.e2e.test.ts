// A client holding the token connects in a loop past CLIENT_ENTRIES_LOGGED, then the
// app is killed (SIGKILL, as in a crash or an OOM kill). The connections left out of the log
// were counted only in memory, written at the next connection logged (up to an hour later) or
// at a clean stop, so the kill lost them whole: the log showed the hundred logged and nothing of
// the flood after them. Now the count is written at the first connection left out, then at most
// every CLIENTS_NOT_LOGGED_FLUSH_MS. A real `codemode daemon` (no Docker needed), real
// local-socket connections, a real SIGKILL, and the log read after a restart.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  auditEntries,
  cleanUpHosts,
  makeHome,
  startDaemon,
} from "../test-support/daemon.js";
import { authenticate, INITIALIZED_LINE, initializeLine } from "../test-support/local-access.js";
import { until } from "../test-support/wait.js";
import { CLIENT_ENTRIES_LOGGED } from "../electron/host/audit/flood/client-entry-limiter.js";

/** Past the limit by this many. */
const OVER = 20;

beforeAll(() => assertHostBuilt());

afterAll(async () => {
  await cleanUpHosts();
});

describe("connections left out of the log, then the app is killed", () => {
  it("are on the record after the kill", async () => {
    const home = makeHome("codemode-client-kill-");
    // No engine here: nothing of Docker's is left behind by the kill.
    const env = { DOCKER_HOST: `unix://${path.join(home, "no-docker.sock")}` };
    const daemon = await startDaemon(home, { env });
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const socketPath = path.join(home, "run", "codemode.sock");
    const hello = initializeLine(1, "loop") + INITIALIZED_LINE;
    for (let i = 0; i < CLIENT_ENTRIES_LOGGED + OVER; i++) {
      const { socket, reply } = await authenticate(socketPath, token, hello);
      expect(reply).toEqual({ kind: "line", line: "OK" });
      const closed = new Promise((resolve) => socket.once("close", resolve));
      await new Promise((resolve) => socket.once("data", resolve));
      socket.end();
      await closed;
    }
    // The first connection left out is on the record at once, before any kill can come.
    await until(
      () => auditEntries(home, "clients_not_logged").length > 0,
      "the count of connections left out to be written",
    );
    expect((await daemon.kill()).signal).toBe("SIGKILL");

    const again = await startDaemon(home, { env });
    await again.stop();
    expect(auditEntries(home, "client_connected", "loop")).toHaveLength(CLIENT_ENTRIES_LOGGED);
    // What the kill cost: those left out after the first, within the interval (the bound).
    const counted = auditEntries(home, "clients_not_logged").reduce((sum, e) => sum + e.count, 0);
    expect(counted).toBeGreaterThanOrEqual(1);
    expect(counted).toBeLessThanOrEqual(OVER);
  }, 120_000);
});
