// A client that writes a line the host cannot read must get an answer, not silence: the SDK's
// stdio transport drops such a line without a word and the client then waits forever.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  CODEMODE_BIN,
  cleanUpHosts,
  hostEnv,
  makeHome,
  startHostInProcess,
} from "../test-support/daemon.js";
import { repoRoot } from "../test-support/processes.js";

/** `codemode shim` as a process we write raw lines to; its stdout split into parsed lines. */
function rawShim(home: string): {
  write: (line: string) => void;
  next: () => Promise<Record<string, unknown>>;
  end: () => Promise<number | null>;
} {
  const child = spawn(process.execPath, [CODEMODE_BIN, "shim"], {
    cwd: repoRoot,
    env: hostEnv(home),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.resume();
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  let buffer = "";
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    waiting?.();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    write: (line) => child.stdin.write(line + "\n"),
    next: async () => {
      const deadline = Date.now() + 10_000;
      while (lines.length === 0) {
        if (Date.now() > deadline) throw new Error("no reply from the shim within 10 s");
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 100);
        });
      }
      return JSON.parse(lines.shift()!) as Record<string, unknown>;
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
  };
}

describe("shim: lines that are not JSON-RPC get a JSON-RPC error", () => {
  let home: string;

  beforeAll(async () => {
    assertHostBuilt();
    home = makeHome("codemode-shim-rpc-");
    await startHostInProcess(home);
  });

  afterAll(() => cleanUpHosts());

  it("answers -32700 for a line that is not JSON, -32600 for JSON that is not JSON-RPC, and goes on", async () => {
    const shim = rawShim(home);
    shim.write("this is not json");
    expect(await shim.next()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error: the line is not JSON" },
    });
    shim.write(JSON.stringify({ id: 7, method: "ping" }));
    expect(await shim.next()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32600 } });
    // The session is still usable after both.
    shim.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw-shim", version: "1" },
        },
      }),
    );
    expect(await shim.next()).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "codemode" } },
    });
    shim.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    shim.write("{broken");
    expect(await shim.next()).toMatchObject({ error: { code: -32700 } });
    shim.write(
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ls" } }),
    );
    expect(await shim.next()).toMatchObject({ id: 2, error: { code: -32602 } });
    expect(await shim.end()).toBe(0);
  });
});
