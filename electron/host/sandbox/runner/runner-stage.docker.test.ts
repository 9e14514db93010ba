// The catalog staged in a warm container (a `catalog` line after the nonce, parsed while the
// container idles; runner-protocol.md): the code's TOOLS and search_tools see it when the start
// says "staged", a start with its own tools replaces it, and every misuse is the runner's host-bug
// exit. Real image, under each runtime the engine has.
import { afterAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { runInContainer, startLine } from "./run-session.js";
import type { CallOutcome, SandboxTool } from "../../core/ports/run-types.js";
import { SandboxContainer } from "../containers/sandbox-container.js";
import { freezeTools, toolsJson } from "../../core/ports/tools-json.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

/** The runner's exit status for a host bug (runner.py EXIT_HOST_BUG). */
const HOST_BUG = 2;
/** How long a runner may take to exit on a bad line. */
const EXIT_WAIT_MS = 10_000;

const STAGED = freezeTools([
  {
    name: "alpha_lookup",
    stub: "async def alpha_lookup(params: dict | None = None) -> str: ...",
    description: "Looks alpha things up",
    schema: '{"type":"object"}',
  },
  { name: "alpha_list", stub: "async def alpha_list() -> str: ...", description: "", schema: null },
]);
const OWN: SandboxTool[] = [{ name: "beta_send", stub: "async def beta_send() -> str: ..." }];

const echo = (tool: string): Promise<CallOutcome> => Promise.resolve({ ok: true, value: tool });

async function readyContainer(runtime: SandboxRuntime): Promise<SandboxContainer> {
  const container = await SandboxContainer.start(fx!.engine, fx!.image, testOwner(), runtime);
  expect(await container.ready).toBe(true);
  return container;
}

/** The container's exit status, once it exited (null when it did not within EXIT_WAIT_MS). */
async function exitStatus(container: SandboxContainer): Promise<number | null> {
  const exited = await Promise.race([
    container.container.wait().then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), EXIT_WAIT_MS)),
  ]);
  return exited ? (await container.exit()).exitCode : null;
}

/** A start line with these tools (a list, or "staged") and code. */
function rawStart(tools: string, code: string): string {
  const line = startLine({ code, tools: [] }, null);
  return line.replace('"tools":[]', `"tools":${tools}`);
}

describeEachRuntime(docker, "a catalog staged in a warm container (%s)", (runtime) => {
  afterAll(async () => {
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("is what TOOLS, search_tools and the tool functions see when the start says staged", async () => {
    const container = await readyContainer(runtime);
    try {
      expect(container.stage(toolsJson(STAGED))).toBe(true);
      const request = {
        code: `print(sorted(TOOLS), TOOLS["alpha_lookup"].schema)
print(search_tools("alpha lookup"))
print(await alpha_list())`,
        tools: STAGED,
      };
      // The run's tools are exactly the staged ones: its start line does not carry them.
      expect(startLine(request, container.staged)).toContain('"tools":"staged"');
      const result = await runInContainer(
        container,
        request,
        { onCall: echo },
        { deadlineCeilingSeconds: 20 },
      );
      expect(result).toMatchObject({
        stdout: `['alpha_list', 'alpha_lookup'] {'type': 'object'}\n['alpha_lookup', 'alpha_list']\nalpha_list\n`,
        error: null,
      });
    } finally {
      await container.remove();
    }
  });

  it("is replaced by the start's own tools: the staged ones are gone", async () => {
    const container = await readyContainer(runtime);
    try {
      container.stage(toolsJson(STAGED));
      const request = {
        // The code walks its process's objects too: nothing of the staged catalog is kept.
        code: `import gc
print(sorted(TOOLS), search_tools("alpha"), await beta_send())
print([o for o in gc.get_objects() if (type(o) is dict and o.get("type") == "catalog") or (type(o) is tuple and len(o) >= 4 and o[0] == "alpha_" + "lookup")])
alpha_list`,
        tools: OWN,
      };
      expect(startLine(request, container.staged)).toContain('"tools":[{"name":"beta_send"');
      const result = await runInContainer(
        container,
        request,
        { onCall: echo },
        { deadlineCeilingSeconds: 20 },
      );
      expect(result.stdout).toBe("['beta_send'] [] beta_send\n[]\n");
      expect(result.error).toContain("NameError: name 'alpha_list' is not defined");
    } finally {
      await container.remove();
    }
  });

  it("a start that says staged with nothing staged is a host bug", async () => {
    const container = await readyContainer(runtime);
    try {
      container.open();
      container.write(rawStart('"staged"', "print('ran')"));
      expect(await exitStatus(container)).toBe(HOST_BUG);
    } finally {
      await container.remove();
    }
  });

  it("a second catalog line is a host bug", async () => {
    const container = await readyContainer(runtime);
    try {
      container.stage(toolsJson(STAGED));
      container.write(`{"type":"catalog","tools":${toolsJson(OWN)}}\n`);
      container.write(rawStart('"staged"', "print('ran')"));
      expect(await exitStatus(container)).toBe(HOST_BUG);
    } finally {
      await container.remove();
    }
  });

  it("a catalog line after the start is a host bug", async () => {
    const container = await readyContainer(runtime);
    try {
      let out = "";
      const running = new Promise<void>((resolve) => {
        container.onStdout((chunk) => {
          out += chunk.toString("utf8");
          if (out.includes("running")) resolve();
        });
      });
      container.open();
      container.write(rawStart("[]", "import time\nprint('running', flush=True)\ntime.sleep(30)"));
      await running;
      container.write(`{"type":"catalog","tools":${toolsJson(STAGED)}}\n`);
      expect(await exitStatus(container)).toBe(HOST_BUG);
    } finally {
      await container.remove();
    }
  });

  it("a catalog line whose tools break the protocol's shape is a host bug", async () => {
    const container = await readyContainer(runtime);
    try {
      container.open();
      container.write(`{"type":"catalog","tools":[{"name":"x","stub":1}]}\n`);
      container.write(rawStart('"staged"', "print('ran')"));
      expect(await exitStatus(container)).toBe(HOST_BUG);
    } finally {
      await container.remove();
    }
  });
});
