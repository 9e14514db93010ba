// A client holding the token cannot flood the audit log, or rename itself, from one connection.
// The SDK's Server calls oninitialized for every notifications/initialized, and each wrote a
// client_connected entry: 20,000 of them (4.6 MB) from one connection in 5 s, enough for the
// audit's size cap to remove its oldest files within minutes. It also took a second initialize
// on the local socket, whose client name then replaced the first one's as the session's taint
// key and in its runs' entries, while the audit had logged the connection under the first name.
// A real host and a real local socket connection; no Docker needed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../api/api-dispatcher.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { auditEntries, startHostWithoutDocker } from "../../../../test-support/daemon.js";
import {
  authenticate,
  INITIALIZED_LINE,
  initializeLine,
} from "../../../../test-support/local-access.js";
import { until } from "../../../../test-support/wait.js";

const NOTIFICATIONS = 5000;

describe("a client repeating initialization on one connection", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-client-flood-"));
  let host: CodeModeHost;
  let stopped = false;

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
  });

  afterAll(async () => {
    if (!stopped) await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("is logged once, under the name of its one initialize", async () => {
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    const { socket, reply } = await authenticate(
      host.socketPath,
      token,
      initializeLine(1, "first"),
    );
    expect(reply).toEqual({ kind: "line", line: "OK" });
    const answers: Record<string, unknown>[] = [];
    let rest = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) answers.push(JSON.parse(line) as Record<string, unknown>);
    });
    socket.write(
      INITIALIZED_LINE.repeat(NOTIFICATIONS) +
        initializeLine(2, "second") +
        INITIALIZED_LINE.repeat(NOTIFICATIONS) +
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) +
        "\n",
    );
    // Answers come in order: once tools/list is answered, every line before it was handled.
    await until(() => answers.some((a) => a.id === 3), "the tools/list answer", 20_000);
    const second = answers.find((a) => a.id === 2) as { error?: { code: number; message: string } };
    expect(second.error?.code).toBe(-32600);
    expect(second.error?.message).toContain("initialized already");

    const page = await dispatchApi(host.api, "clients.list", {});
    expect(page.ok && page.value.items.map((c) => c.name)).toEqual(["first"]);
    socket.destroy();
    // Stopping the host writes out every entry still queued.
    await host.stop();
    stopped = true;
    const connected = auditEntries(home, "client_connected");
    expect(connected.map((e) => e.client)).toEqual(["first"]);
  }, 60_000);
});

describe("a client announcing itself initialized before its initialize", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-client-early-"));

  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("is logged under the name its runs go by, once it has one", async () => {
    // Before, the early notifications/initialized logged the connection as "unknown client"
    // and used up its one entry; the initialize after it then named the session (its runs,
    // its taint key) "named", which the audit never tied to the connection.
    const host = await startHostWithoutDocker(home);
    let stopped = false;
    try {
      const token = readFileSync(path.join(home, "token"), "utf8").trim();
      const { socket, reply } = await authenticate(host.socketPath, token, INITIALIZED_LINE);
      expect(reply).toEqual({ kind: "line", line: "OK" });
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (text += chunk));
      socket.write(initializeLine(1, "named"));
      // As a real client does: notifications/initialized once the initialize is answered.
      await until(() => text.includes('"id":1'), "the initialize answer", 20_000);
      socket.write(
        INITIALIZED_LINE + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\n",
      );
      await until(() => text.includes('"id":2'), "the tools/list answer", 20_000);
      const page = await dispatchApi(host.api, "clients.list", {});
      expect(page.ok && page.value.items.map((c) => c.name)).toEqual(["named"]);
      socket.destroy();
      await host.stop();
      stopped = true;
      const connected = auditEntries(home, "client_connected");
      expect(connected.map((e) => e.client)).toEqual(["named"]);
    } finally {
      if (!stopped) await host.stop();
    }
  }, 60_000);
});
