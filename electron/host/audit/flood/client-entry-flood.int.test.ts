// A client holding the token cannot flood the audit log by connecting and leaving in a loop:
// each connection used to be logged twice (client_connected, client_disconnected), ~1,100
// connections a second from one process (~550 KB of entries a second), so the audit's size
// cap would remove its oldest files within minutes. A connection that never initialized was
// still logged as leaving. Now CLIENT_ENTRIES_LOGGED connections a window are logged,
// the rest counted. A real host and real local socket connections; no Docker needed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditEntries, startHostWithoutDocker } from "../../../../test-support/daemon.js";
import {
  authenticate,
  INITIALIZED_LINE,
  initializeLine,
} from "../../../../test-support/local-access.js";
import { CLIENT_ENTRIES_LOGGED } from "./client-entry-limiter.js";

/** Connections that initialize, past the limit; then as many that never do. */
const CONNECTIONS = CLIENT_ENTRIES_LOGGED + 150;

describe("a client connecting and leaving in a loop", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-client-loop-"));

  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("is logged connection by connection only up to the limit", async () => {
    const host = await startHostWithoutDocker(home);
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const hello = initializeLine(1, "loop") + INITIALIZED_LINE;
    const connectAndLeave = async (initialize: boolean): Promise<void> => {
      const { socket, reply } = await authenticate(host.socketPath, token, initialize ? hello : "");
      expect(reply).toEqual({ kind: "line", line: "OK" });
      const closed = new Promise((resolve) => socket.once("close", resolve));
      // Both lines went in one write, so the host reads the notification with the initialize.
      if (initialize) await new Promise((resolve) => socket.once("data", resolve));
      socket.end();
      await closed;
    };
    for (let i = 0; i < CONNECTIONS; i++) await connectAndLeave(true);
    for (let i = 0; i < CONNECTIONS; i++) await connectAndLeave(false);
    await host.stop();

    const connected = auditEntries(home, "client_connected");
    const disconnected = auditEntries(home, "client_disconnected");
    expect(connected).toHaveLength(CLIENT_ENTRIES_LOGGED);
    // Each logged end belongs to a logged start; connections that never initialized log nothing.
    const started = new Set(connected.map((e) => e.connectionId));
    expect(disconnected.length).toBeLessThanOrEqual(CLIENT_ENTRIES_LOGGED);
    expect(disconnected.every((e) => started.has(e.connectionId))).toBe(true);
    // The initialized connections past the limit are counted, though none was logged after
    // them: the first left out wrote a count at once, the app's stop the rest.
    const counted = auditEntries(home, "clients_not_logged").reduce((sum, e) => sum + e.count, 0);
    expect(counted).toBe(CONNECTIONS - CLIENT_ENTRIES_LOGGED);
  }, 120_000);
});
