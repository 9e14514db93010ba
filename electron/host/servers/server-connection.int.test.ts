// The host reaches into private fields of the MCP SDK's StdioClientTransport: _readBuffer (a
// server's stdout is read with StdioLineBuffer), _process (a flooding server's stdout is
// destroyed and the child killed at once), and, where the host starts the child itself in a
// process group of its own (ProcessTreeTransport), _serverParams, _stderrStream and
// processReadBuffer. An SDK update that renames any must fail here, not leave the flood open or
// the server mute without a word. A real child process; no Docker needed.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { StderrTail } from "./stderr-tail.js";
import { defaultTransportFactory, spawnConnection, type Connection } from "./server-connection.js";
import { StdioLineBuffer } from "./stdio-line-buffer.js";
import { until } from "../../../test-support/wait.js";

describe("the SDK's private fields the host relies on", () => {
  let connection: Connection | null = null;

  afterEach(async () => {
    await connection?.transport.close();
    connection = null;
  });

  it("are there on a started StdioClientTransport", async () => {
    connection = spawnConnection({
      transportFactory: defaultTransportFactory,
      entry: {
        command: process.execPath,
        args: ["-e", 'process.stdin.resume().on("end", () => process.exit(0))'],
        env: {},
        secretEnv: [],
        allow: null,
        private: false,
      },
      path: undefined,
      clientInfo: { name: "test", version: "1" },
      stderr: new StderrTail(),
    });
    const fields = connection.transport as unknown as {
      _readBuffer?: unknown;
      _process?: ChildProcess;
    };
    expect(fields._readBuffer).toBeInstanceOf(StdioLineBuffer);
    await connection.transport.start();
    expect(fields._process?.pid).toBe(connection.transport.pid);
    expect(fields._process?.stdout?.readable).toBe(true);
  });

  it("carry a server's stdout and stderr to the client, as the SDK's own start would", async () => {
    const stderr = new StderrTail();
    connection = spawnConnection({
      transportFactory: defaultTransportFactory,
      entry: {
        command: process.execPath,
        args: [
          "-e",
          `console.error("said on stderr"); console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/ping-x" })); process.stdin.resume().on("end", () => process.exit(0));`,
        ],
        env: {},
        secretEnv: [],
        allow: null,
        private: false,
      },
      path: undefined,
      clientInfo: { name: "test", version: "1" },
      stderr,
    });
    const messages: unknown[] = [];
    const transport = connection.transport;
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      messages.push(message);
      onmessage?.(message, extra);
    };
    await transport.start();
    await until(() => messages.length === 1, "the notification the child wrote");
    expect(messages[0]).toEqual({ jsonrpc: "2.0", method: "notifications/ping-x" });
    await until(() => stderr.snapshot().includes("said on stderr"), "its stderr line");
  });
});
