// The host reaches into two private fields of the MCP SDK's StdioClientTransport: _readBuffer
// (a server's stdout is read with StdioLineBuffer) and _process (a flooding server's stdout is
// destroyed and the child killed at once). An SDK update that renames either must fail here,
// not leave the flood open without a word. A real child process; no Docker needed.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { StderrTail } from "./stderr-tail.js";
import { defaultTransportFactory, spawnConnection, type Connection } from "./server-connection.js";
import { StdioLineBuffer } from "./stdio-line-buffer.js";

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
});
