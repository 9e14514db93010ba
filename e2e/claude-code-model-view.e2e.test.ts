// What the model reads of a run when the client is a real Claude Code. `claude -p` runs with
// ANTHROPIC_BASE_URL pointed at a stand-in Messages API (test-support/fake-model-api.ts) that
// asks for one run_python call and records the tool_result Claude Code then sends the model;
// the MCP side is real: `codemode serve` over stdio, Docker, the toy server. Claude Code gives
// the model a result's structuredContent as JSON in place of its text when there is one, so
// run_python keeps its whole result in _meta and the model reads the compact text.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { dockerOrSkip } from "../test-support/docker.js";
import { startFakeModelApi } from "../test-support/fake-model-api.js";
import { childEnv, repoRoot } from "../test-support/processes.js";
import {
  assertServeBuilt,
  CODEMODE_BIN,
  sandboxContainers,
  tempHome,
  TOY_COMMAND,
} from "../test-support/serve-client.js";
import { removeTempDirs, tempDir } from "../test-support/temp-dir.js";
import { until } from "../test-support/wait.js";

const fx = await dockerOrSkip();
const CLAUDE = path.join(repoRoot, "node_modules", ".bin", "claude");
/** The name Claude Code gives the tool of the server it knows as "codemode". */
const TOOL = "mcp__codemode__run_python";

describe.skipIf(!fx)("Claude Code: what the model reads of a run", () => {
  beforeAll(() => {
    assertServeBuilt();
    assertToyServerBuilt();
  });
  afterAll(removeTempDirs);

  it("the compact text, not the result object as JSON", async () => {
    const code = [
      "import sys",
      'r = await add({"a": 40, "b": 2})',
      "print(r)",
      'print("careful", file=sys.stderr)',
    ].join("\n");
    const api = await startFakeModelApi(TOOL, { code });
    const { home } = tempHome();
    const clientHome = tempDir("codemode-claude-home-");
    const mcpConfig = JSON.stringify({
      mcpServers: {
        codemode: {
          command: process.execPath,
          args: [CODEMODE_BIN, "serve", "--no-preload", "--", ...TOY_COMMAND],
          // How the engine is reached (DOCKER_HOST, the socket under the real HOME), as
          // dockerOrSkip found it: not Claude Code's stand-in HOME.
          env: childEnv(home),
        },
      },
    });
    try {
      const claude = await promisify(execFile)(
        CLAUDE,
        [
          "-p",
          "Add 40 and 2 with the toy server.",
          "--mcp-config",
          mcpConfig,
          "--strict-mcp-config",
          "--allowedTools",
          TOOL,
          "--output-format",
          "json",
        ],
        {
          cwd: clientHome,
          encoding: "utf8",
          timeout: 120_000,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: clientHome,
            ANTHROPIC_BASE_URL: api.url,
            ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_AUTOUPDATER: "1",
            // Connect to the MCP server before the first request, so the tool is on offer.
            MCP_CONNECTION_NONBLOCKING: "0",
          },
        },
      );
      expect(JSON.parse(claude.stdout), api.requests.join("\n")).toMatchObject({
        is_error: false,
        result: "Done.",
      });
      expect(api.toolResults, api.requests.join("\n")).toEqual([
        expect.objectContaining({
          type: "tool_result",
          content: [{ type: "text", text: `{"sum":42}\n[stderr]\ncareful\n` }],
        }),
      ]);
    } finally {
      await api.close();
      // serve removes its containers once Claude Code has closed its stdin.
      await until(
        async () => (await sandboxContainers(fx!.docker, home)).length === 0,
        "serve's containers removed",
        30_000,
      );
    }
  });
});
