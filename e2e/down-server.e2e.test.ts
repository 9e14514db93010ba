// A configured server that does not start is visible to the model and to the user: the
// run_python description names it with why, calling one of its tools from the code raises
// ToolError with that reason (not NameError), and the Servers page shows the reason and what it
// printed. A real `codemode daemon --ui`, a real server command that exits at once, a real
// shim under the SDK's Client, real Docker and Debian's Chromium.

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  makeHome,
  toyServer,
  writeServers,
} from "../test-support/daemon.js";
import type { McpSession } from "../test-support/mcp-session.js";
import { dockerOrSkip } from "../test-support/docker.js";
import {
  assertUiBuilt,
  launchChromium,
  startUiDaemon,
  UI_TIMEOUT_MS,
  waitForText,
  type UiDaemon,
} from "../test-support/browser.js";
import { listsTool } from "../test-support/described-tools.js";

const fx = await dockerOrSkip();

/** What the broken server says before it exits: the line a user needs to fix it. */
const LAST_WORDS = "memory-like: MEMORY_FILE_PATH is not set";

// Skipped only outside CI when no Docker engine runs (dockerOrSkip throws under CI=true).
describe.skipIf(!fx)("a server that is not running", () => {
  const home = makeHome("codemode-down-");
  let daemon: UiDaemon;
  let shim: McpSession;
  let browser: Browser | undefined;

  beforeAll(async () => {
    assertHostBuilt();
    assertUiBuilt();
    writeServers(home, {
      toy: toyServer(),
      broken: {
        command: process.execPath,
        args: ["-e", `console.error(${JSON.stringify(LAST_WORDS)}); process.exit(3)`],
      },
    });
    daemon = await startUiDaemon(home);
    shim = await connectShim(home, { name: "down-e2e", version: "1" });
  });

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await shim?.close().catch(() => undefined);
    try {
      if (daemon) expect(await daemon.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await cleanUpHosts(fx?.docker);
    }
  });

  it("is named in the run_python description with its reason", async () => {
    const description = await shim.description();
    expect(description).toContain("Servers not running");
    const line = description.split("\n").find((l) => l.startsWith('- "broken": '));
    expect(line).toBeDefined();
    expect(line).toContain("failed to start");
    expect(line).toContain(LAST_WORDS);
    // The working server's tools are there as usual.
    expect(listsTool(description, "toy", "echo")).toBe(true);
  });

  it("a call to one of its tools raises ToolError naming the server and the reason, not NameError", async () => {
    const result = await shim.run(
      [
        "try:",
        '    await broken__read_graph({"query": "x"})',
        "except ToolError as error:",
        '    print("caught:", error)',
        'print(await toy__echo({"text": "still works"}))',
        "try:",
        "    not_a_tool_at_all",
        "except NameError:",
        '    print("plain typo: NameError")',
        "await broken__create_entities()",
      ].join("\n"),
    );
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^caught: broken__read_graph: server 'broken' is not running: failed to start: /,
    );
    expect(lines[0]).toContain(LAST_WORDS);
    expect(lines[1]).toContain("still works");
    expect(lines[2]).toBe("plain typo: NameError");
    // Uncaught, it ends the run as ToolError, with the reason.
    expect(result.error).toContain("ToolError: broken__create_entities: server 'broken'");
    expect(result.error).not.toContain("NameError");
  });

  it("the Servers page shows the reason and what the server printed", async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    await page.goto(await daemon.newLink());
    await page.waitForURL((url) => url.hash.startsWith("#/servers"));
    const row = page.locator("li.server-row", { hasText: "broken" });
    await waitForText(row, /failed to start/);
    const output = page.getByLabel("Output of broken");
    expect(await waitForText(output, /MEMORY_FILE_PATH is not set/)).toContain(LAST_WORDS);
  });
});
