// `codemode serve --runtime runsc` under a real MCP client: the code runs on gVisor (its kernel
// reports 4.4.0) and still calls the wrapped server's tools through the bridge; without the
// flag, the app's saved Isolation setting (runsc) chooses it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { assertToyServerBuilt } from "../test-servers/toy-server.js";
import { describeOnRunsc, dockerOnRuntimes } from "../test-support/docker.js";
import type { McpSession } from "../test-support/mcp-session.js";
import {
  assertServeBuilt,
  sandboxContainers,
  startServe,
  tempHome,
  TOY_COMMAND,
} from "../test-support/serve-client.js";
import { removeTempDirs } from "../test-support/temp-dir.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

describeOnRunsc(docker, "codemode serve --runtime runsc", () => {
  const { home } = tempHome();
  let serve: McpSession | null = null;

  afterAll(async () => {
    await serve?.close();
    if (fx) expect(await sandboxContainers(fx.docker, home)).toEqual([]);
    removeTempDirs();
  });

  it("runs the code on gVisor, and its tool calls still go through the bridge", async () => {
    assertServeBuilt();
    assertToyServerBuilt();
    serve = await startServe({ home, args: ["--runtime", "runsc", "--", ...TOY_COMMAND] });
    const result = await serve.run(
      "import os\nprint(os.uname().release)\nprint(await add({'a': 2, 'b': 3}))",
    );
    expect(result.error).toBeNull();
    const [kernel, sum] = result.stdout.trim().split("\n");
    expect(kernel).toBe("4.4.0");
    expect(sum).toContain("5");
  });

  it("without --runtime follows the app's saved Isolation setting", async () => {
    await serve?.close();
    writeFileSync(path.join(home, "settings.json"), '{"sandboxRuntime":"runsc"}', { mode: 0o600 });
    serve = await startServe({ home, args: ["--", ...TOY_COMMAND] });
    const result = await serve.run("import os\nprint(os.uname().release)");
    expect(result.error).toBeNull();
    expect(result.stdout.trim()).toBe("4.4.0");
  });
});
