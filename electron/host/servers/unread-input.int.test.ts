// A server cannot make the host hold its answers without bound. The SDK's client answers every
// request a server sends (ping at least) and echoes its id, which the server chooses: a server
// that stopped reading its stdin and sent pings with 1 MB ids, well under the message and byte
// caps, had the host queue 1 MB for its stdin per ping, in the host's memory, for as long as
// it liked (hundreds of MB a minute). Now a server that leaves more than
// INPUT_UNREAD_MAX_BYTES of the host's messages unread is stopped. A real server
// process; no Docker needed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ServerProcessTransport } from "./server-process-transport.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeStarted, track } from "../../../test-support/wrapped-server-fixtures.js";
import { until } from "../../../test-support/wait.js";
import { WrappedServer } from "./wrapped-server.js";
import { INPUT_UNREAD_MAX_BYTES } from "./server-connection.js";

// Lists one tool, then stops reading its stdin and sends a ping with a 1 MB id every 100 ms.
const SERVER = `
const readline = require("node:readline");
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") {
    send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "pinger", version: "1" } } });
  } else if (m.method === "tools/list") {
    send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "a", inputSchema: { type: "object" } }] } });
    lines.close();
    process.stdin.pause();
    let n = 0;
    setInterval(() => send({ jsonrpc: "2.0", id: String(n++) + "x".repeat(1_000_000), method: "ping" }), 100);
  }
});
`;

describe("a server that sends requests and reads no answer", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-unread-input-"));
  afterEach(closeStarted);
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it("is stopped once the host's unread messages to it pass the bound, and says why", async () => {
    const script = path.join(home, "pinger.cjs");
    writeFileSync(script, SERVER);
    const transports: ServerProcessTransport[] = [];
    const server = track(
      new WrappedServer(
        "pinger",
        {
          command: process.execPath,
          args: [script],
          env: {},
          secretEnv: [],
          allow: null,
          private: false,
        },
        {
          transportFactory: (params) => {
            const transport = new ServerProcessTransport(params);
            transports.push(transport);
            return transport;
          },
          backoff: { initialMs: 60_000, maxMs: 60_000 },
        },
      ),
    );
    await server.start();
    const transport = transports[0];
    let mostUnread = 0;
    const watch = setInterval(() => {
      mostUnread = Math.max(mostUnread, transport?.unreadInputBytes ?? 0);
    }, 20);
    try {
      // Some 17 pings (2 s at their pace) pass the bound; a loaded machine sends and parses
      // them slower, and the expectation below says what is wrong if the stop never comes.
      await until(() => server.info.lastError !== null, "the server was stopped", 20_000).catch(
        () => undefined,
      );
    } finally {
      clearInterval(watch);
    }
    expect(server.info.lastError).toContain(
      `was stopped: it left more than ${INPUT_UNREAD_MAX_BYTES / (1024 * 1024)} MiB of the host's messages unread`,
    );
    expect(mostUnread).toBeLessThanOrEqual(INPUT_UNREAD_MAX_BYTES + 2_000_000);
  }, 30_000);
});
