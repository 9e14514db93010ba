// A client holding the token cannot grow the host without bound by asking and never reading
// the answers: every request is answered (a tools/list carries run_python's whole description,
// a line that is not JSON gets a -32700 error), and the answers waited in the host's memory for
// a client that never took them, ~50 bytes asked for kilobytes kept. Now a connection whose
// unread answers pass HOST_LIMITS.socketUnreadMaxBytes is closed, and the audit log says so
// (the cut-off used to be silent: a user could not tell a client had been doing it). A real
// host and a real local socket connection; no Docker needed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { auditEntries, startHostWithoutDocker } from "../../../../test-support/daemon.js";
import { authenticate, initializeLine } from "../../../../test-support/local-access.js";

/** Requests sent; their answers together are far past the limit. */
const REQUESTS = 60_000;

describe("a client that never reads its answers", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-unread-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("is disconnected once its unread answers pass the limit, and the host stays small", async () => {
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const { socket, reply } = await authenticate(
      host.socketPath,
      token,
      initializeLine(0, "hoarder"),
    );
    expect(reply).toEqual({ kind: "line", line: "OK" });
    // Never read again: the answers pile up on the host's side.
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const rssBefore = process.memoryUsage().rss;
    const lines: string[] = [];
    for (let id = 1; id <= REQUESTS; id++) {
      lines.push(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }));
    }
    socket.write(lines.join("\n") + "\n");
    const outcome = await Promise.race([
      closed.then(() => "closed"),
      new Promise((resolve) => setTimeout(() => resolve("still open"), 15_000)),
    ]);
    const grown = process.memoryUsage().rss - rssBefore;
    socket.destroy();
    expect(outcome).toBe("closed");
    // What the host kept for it: the limit and the requests already under way, not every
    // answer (before: ~456 MB for these 3 MB of requests; ~85 MB now, most of it the requests).
    expect(grown).toBeLessThan(256 * 1024 * 1024);
    // The log names the connection, what it left unread and the limit it passed.
    await host.auditDurable();
    const [connected] = auditEntries(home, "client_connected", "hoarder");
    const cutOff = auditEntries(home, "client_cut_off", "hoarder");
    expect(cutOff).toHaveLength(1);
    expect(cutOff[0]).toMatchObject({
      transport: "socket",
      connectionId: connected?.connectionId,
      limitBytes: HOST_LIMITS.socketUnreadMaxBytes,
    });
    expect(cutOff[0]?.unreadBytes).toBeGreaterThan(HOST_LIMITS.socketUnreadMaxBytes);
  }, 60_000);
});
