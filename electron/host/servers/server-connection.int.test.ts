// The host's own stdio transport under a real child process (no Docker): the child leads a
// process group of its own, its stdout and stderr reach the client as the SDK's transport would
// carry them, and what it leaves unread of the host's messages is seen.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { StderrTail } from "./stderr-tail.js";
import { defaultTransportFactory, spawnConnection, type Connection } from "./server-connection.js";
import { ServerProcessTransport } from "./server-process-transport.js";
import { until } from "../../../test-support/wait.js";

const entry = (script: string) => ({
  command: process.execPath,
  args: ["-e", script],
  env: {},
  secretEnv: [],
  allow: null,
  private: false,
});

describe("the transport a wrapped server runs on", () => {
  let connection: Connection | null = null;

  afterEach(async () => {
    await connection?.transport.close();
    connection = null;
  });

  it("is the host's own, and starts the child as the leader of a process group", async () => {
    connection = spawnConnection({
      transportFactory: defaultTransportFactory,
      entry: entry('process.stdin.resume().on("end", () => process.exit(0))'),
      path: undefined,
      clientInfo: { name: "test", version: "1" },
      stderr: new StderrTail(),
    });
    expect(connection.transport).toBeInstanceOf(ServerProcessTransport);
    await connection.transport.start();
    const pid = connection.transport.pid;
    expect(typeof pid).toBe("number");
    if (process.platform !== "win32") {
      const group = execFileSync("ps", ["-o", "pgid=", "-p", String(pid)], { encoding: "utf8" });
      expect(Number(group.trim())).toBe(pid);
    }
    expect(connection.transport.unreadInputBytes).toBe(0);
  });

  it("carries a server's stdout and stderr to the client, as the SDK's own transport would", async () => {
    const stderr = new StderrTail();
    connection = spawnConnection({
      transportFactory: defaultTransportFactory,
      entry: entry(
        `console.error("said on stderr"); console.log(JSON.stringify({ jsonrpc: "2.0", method: "notifications/ping-x" })); process.stdin.resume().on("end", () => process.exit(0));`,
      ),
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
