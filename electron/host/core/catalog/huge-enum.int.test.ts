// A wrapped server chooses its tools' schemas, and ajv checks each schema against its
// meta-schema before the catalog compiles it. Draft-07's meta-schema asks for an enum's values
// to be unique, which ajv checked by comparing every pair: a server listing one tool whose enum
// held 30,000 distinct strings held the host's thread for seconds at every catalog build (and
// 100,000, ~900 KB, for ~67 s). Real stdio server process, real host; no Docker needed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../api/api-dispatcher.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { startHostWithoutDocker } from "../../../../test-support/daemon.js";
import { until } from "../../../../test-support/wait.js";

const VALUES = 30_000;

// A bare JSON-RPC server listing one tool, `pick`, whose one argument is an enum of VALUES
// distinct strings.
const SERVER = `
const readline = require("node:readline");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const values = Array.from({ length: ${VALUES} }, (_, i) => "value-" + i);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "enums", version: "1" } } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "pick", inputSchema: {
      type: "object", properties: { choice: { enum: values } } } }] } });
  } else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no" } });
});
`;

describe("a server whose tool has a huge enum", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-huge-enum-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    writeFileSync(path.join(home, "enum-server.cjs"), SERVER);
    host = await startHostWithoutDocker(home);
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("gets its tool into the catalog without holding the host's thread", async () => {
    // The longest the host's thread went without running a 10 ms timer, from the add until the
    // tool is in the catalog. Before: ~3-6 s (the meta-schema check alone).
    let longestGapMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
    }, 10);
    try {
      const saved = await dispatchApi(host.api, "servers.upsert", {
        name: "enums",
        entry: { command: process.execPath, args: [path.join(home, "enum-server.cjs")] },
      });
      expect(saved.ok).toBe(true);
      await until(
        () => host.engine.description().includes("pick"),
        "the tool is in the catalog",
        60_000,
      );
    } finally {
      clearInterval(ticker);
    }
    expect(longestGapMs).toBeLessThan(1_000);
    const tools = await dispatchApi(host.api, "servers.tools", { name: "enums" });
    expect(tools.ok && tools.value.tools.map((t) => [t.name, t.leftOut])).toEqual([["pick", null]]);
  }, 90_000);
});
