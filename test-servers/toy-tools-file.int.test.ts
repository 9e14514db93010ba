// The toy server's TOY_TOOLS_FILE mode through the SDK's own client: what the tests of pinned
// tool definitions lean on (the whole wire object listed as written, re-read on every listing,
// list_changed when the file changes).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ListToolsResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { TOY_SERVER_UNIT_JS } from "../test-support/toy-build.js";
import { until } from "../test-support/wait.js";

const dir = mkdtempSync(join(tmpdir(), "toy-tools-file-"));
const file = join(dir, "tools.json");
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  rmSync(dir, { recursive: true, force: true });
});

const echo = {
  name: "echo",
  description: "Echo v1.",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  "x-extra": { kept: true },
};

describe("toy server TOY_TOOLS_FILE", () => {
  it("lists the file's tools as written, answers calls with name and args, and sends list_changed on edits", async () => {
    writeFileSync(file, JSON.stringify([echo]));
    const client = new Client({ name: "t", version: "1" });
    clients.push(client);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [TOY_SERVER_UNIT_JS],
        env: { TOY_TOOLS_FILE: file },
        stderr: "pipe",
      }),
    );
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
    // A loose schema: the key the SDK's own schema would drop is on the wire.
    const wire = await client.request(
      { method: "tools/list", params: {} },
      z.looseObject({ tools: z.array(z.looseObject({})) }),
    );
    expect(wire.tools).toEqual([echo]);

    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.structuredContent).toEqual({ tool: "echo", args: { text: "hi" } });

    const second = { name: "added", inputSchema: { type: "object" } };
    writeFileSync(file, JSON.stringify([{ ...echo, description: "Echo v2." }, second]));
    await until(() => changes > 0, "list_changed", 20_000);
    const listed = await client.request(
      { method: "tools/list", params: {} },
      ListToolsResultSchema,
    );
    expect(listed.tools.map((t) => [t.name, t.description])).toEqual([
      ["echo", "Echo v2."],
      ["added", undefined],
    ]);
  });
});
