// The catalog's suggested "ask first" policies against the real servers: every tool an entry
// names must be one its server lists, else the safe default would ask about nothing. The
// servers the tests can start (the published filesystem and memory servers, dev dependencies
// of this checkout) are started for real, each over stdio with the SDK's client; the other
// entries are checked by the catalog's own unit test for shape only.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../test-support/processes.js";
import { removeTempDirs, tempDir } from "../../test-support/temp-dir.js";
import { findCatalogEntry } from "./server-catalog.js";

/** How each startable catalog server runs from this checkout (its bin), with its settings. */
const STARTABLE: Record<string, (dir: string) => { args: string[]; env?: Record<string, string> }> =
  {
    filesystem: (dir) => ({ args: [bin("mcp-server-filesystem"), dir] }),
    memory: (dir) => ({
      args: [bin("mcp-server-memory")],
      env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") },
    }),
  };

function bin(name: string): string {
  return path.join(repoRoot, "node_modules", ".bin", name);
}

async function listedTools(id: string): Promise<string[]> {
  const launch = STARTABLE[id]!(tempDir(`codemode-catalog-${id}-`));
  const client = new Client({ name: "catalog-policies-test", version: "1" });
  const [command, ...args] = launch.args;
  await client.connect(
    new StdioClientTransport({
      command: command!,
      args,
      env: { PATH: process.env.PATH ?? "", ...launch.env },
      stderr: "ignore",
    }),
  );
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe("catalog policies name tools the real servers list", () => {
  afterAll(() => removeTempDirs());

  for (const id of Object.keys(STARTABLE)) {
    it(`${id}: every tool it asks first about is listed`, async () => {
      const asked = findCatalogEntry(id)?.ask ?? [];
      expect(asked.length).toBeGreaterThan(0);
      const listed = await listedTools(id);
      expect(asked.filter((name) => !listed.includes(name))).toEqual([]);
    });
  }
});
