// The toy server itself, through the SDK's own client: other tests lean on every
// behaviour pinned here.

import { textOf } from "../test-support/wait.js";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../test-support/toy-build.js";
import { TOY_DEEP_SCHEMA_LEVELS } from "./toy-server.js";

let workDir: string;
const clients: Client[] = [];

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "toy-server-test-"));
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
});

async function connect(env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "toy-server-test", version: "1.0.0" });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TOY_SERVER_UNIT_JS],
      env,
      stderr: "pipe",
    }),
  );
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function depthOf(schema: unknown): number {
  const next = (schema as { properties?: { next?: unknown } }).properties?.next;
  return next === undefined ? 0 : 1 + depthOf(next);
}

describe("toy server", () => {
  it("lists its tools, and TOY_TOOL_PREFIX prefixes every name, run-time additions included", async () => {
    const plain = await connect();
    expect((await plain.listTools()).tools.map((t) => t.name)).toEqual([
      "add",
      "echo",
      "sleep",
      "big",
      "fail",
      "crash",
      "env",
      "read_secret",
      "send",
      "get-weather",
      "deep",
      "add_tool",
    ]);
    const prefixed = await connect({ TOY_TOOL_PREFIX: "p_" });
    await call(prefixed, "p_add_tool", { name: "extra" });
    const prefixedNames = (await prefixed.listTools()).tools.map((t) => t.name);
    expect(prefixedNames.every((n) => n.startsWith("p_"))).toBe(true);
    expect(prefixedNames).toContain("p_extra");
  });

  it("answers each tool as documented", async () => {
    const client = await connect({ TOY_SETTING: "on" });
    const sum = await call(client, "add", { a: 40, b: 2 });
    expect(sum.structuredContent).toEqual({ sum: 42 });
    expect(textOf(sum)).toBe("42");
    expect(textOf(await call(client, "echo", { text: "héllo" }))).toBe("héllo");
    expect(textOf(await call(client, "sleep", { ms: 20 }))).toBe("slept");
    expect(Buffer.byteLength(textOf(await call(client, "big", { bytes: 100_000 })))).toBe(100_000);
    const failure = await call(client, "fail");
    expect(failure.isError).toBe(true);
    expect(textOf(failure)).toBe("toy failure");
    expect(textOf(await call(client, "env", { name: "TOY_SETTING" }))).toBe("on");
    expect(textOf(await call(client, "env", { name: "TOY_NOT_SET_ANYWHERE" }))).toBe("(unset)");
    expect(textOf(await call(client, "read_secret"))).toBe("the secret is 42");
    expect(textOf(await call(client, "send", { to: "x@example.com", body: "hi" }))).toBe("sent");
    expect(textOf(await call(client, "get-weather", { city: "Oslo" }))).toContain("Oslo");
    await expect(call(client, "no_such_tool")).rejects.toThrow(/Unknown tool/);
  });

  it(`deep's input schema nests ${TOY_DEEP_SCHEMA_LEVELS} objects; add and send refuse extra properties`, async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(depthOf(byName.get("deep")?.inputSchema)).toBe(TOY_DEEP_SCHEMA_LEVELS);
    expect(byName.get("add")?.inputSchema.additionalProperties).toBe(false);
    expect(byName.get("send")?.inputSchema.additionalProperties).toBe(false);
    expect(byName.get("echo")?.inputSchema.additionalProperties).toBeUndefined();
  });

  it("appends every call to TOY_CALL_LOG as one JSON line, unknown tools included", async () => {
    const log = join(workDir, "calls.jsonl");
    const client = await connect({ TOY_CALL_LOG: log });
    await call(client, "echo", { text: "one" });
    await call(client, "nope", { x: 1 }).catch(() => undefined);
    const lines = readFileSync(log, "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      { tool: "echo", args: { text: "one" } },
      { tool: "nope", args: { x: 1 } },
    ]);
  });

  it("pages tools/list with nextCursor when TOY_PAGE_SIZE is set", async () => {
    const client = await connect({ TOY_PAGE_SIZE: "5" });
    const first = await client.listTools();
    expect(first.tools).toHaveLength(5);
    expect(first.nextCursor).toBe("5");
    const third = await client.listTools({ cursor: "10" });
    expect(third.tools.map((t) => t.name)).toEqual(["deep", "add_tool"]);
    expect(third.nextCursor).toBeUndefined();
  });

  it("TOY_FAIL_START=1 exits with status 1 and a stderr line, before reading anything", async () => {
    const child = spawn(process.execPath, [TOY_SERVER_UNIT_JS], {
      env: { TOY_FAIL_START: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((r) => child.on("close", r));
    expect(code).toBe(1);
    expect(stderr).toContain("TOY_FAIL_START=1");
  });

  it("exits when its stdin closes, even with a sleep still pending", async () => {
    const client = new Client({ name: "toy-server-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOY_SERVER_UNIT_JS],
      stderr: "pipe",
    });
    await client.connect(transport);
    const pid = transport.pid!;
    void client.callTool({ name: "sleep", arguments: { ms: 30_000 } }).catch(() => undefined);
    const t0 = Date.now();
    await client.close();
    // Transport.close waits 2 s before SIGTERM: returning sooner means the server left on its own.
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
