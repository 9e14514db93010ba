// A server cannot keep the host's thread busy by writing messages as fast as its pipe takes
// them: notifications the host has no use for (log lines, progress, unknown methods) cost a
// parse each, and such a server kept the host ~100% busy, event-loop delays ~190 ms, for as
// long as it liked. Now a server sending more than SERVER_LIMITS.messagesPerSecondMax messages
// in a second is stopped (restart backoff applies) and its state says why. A real stdio server
// process and a real host; no Docker needed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../api/api-dispatcher.js";
import type { CodeModeHost } from "../app/code-mode-host.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { startHostWithoutDocker } from "../../../test-support/daemon.js";
import { until } from "../../../test-support/wait.js";

// A bare JSON-RPC server: it starts and lists one tool, then writes log notifications without
// end, as fast as its stdout drains.
const SERVER = `
const readline = require("node:readline");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const note = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message",
  params: { level: "info", data: "x" } }) + "\\n";
const block = note.repeat(1000);
function flood() { while (process.stdout.write(block)) {} process.stdout.once("drain", flood); }
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {}, logging: {} }, serverInfo: { name: "noisy", version: "1" } } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "a", inputSchema: { type: "object" } }] } });
    setTimeout(flood, 200);
  } else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } });
});
`;

describe("a server flooding the host with notifications", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-message-flood-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    const script = path.join(home, "noisy-server.cjs");
    writeFileSync(script, SERVER);
    host = await startHostWithoutDocker(home);
    const saved = await dispatchApi(host.api, "servers.upsert", {
      name: "noisy",
      entry: { command: process.execPath, args: [script], env: {} },
    });
    expect(saved.ok).toBe(true);
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("is stopped, says why, and leaves the host's thread mostly idle", async () => {
    const view = () => host.serverViews().find((s) => s.name === "noisy");
    await until(() => view()?.toolCount === 1, "the server listed its tool", 20_000);
    // From its first flood on, the host spends little of its time on it: it is stopped, started
    // again after its backoff and stopped again at once (before: ~100% of this process's CPU).
    const seconds = 4;
    const cpu = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const used = process.cpuUsage(cpu);
    expect((used.user + used.system) / 1e6 / seconds).toBeLessThan(0.3);
    expect(view()?.lastError).toContain(
      `was stopped: it sent more than ${SERVER_LIMITS.messagesPerSecondMax} messages in one second`,
    );
  }, 60_000);
});
