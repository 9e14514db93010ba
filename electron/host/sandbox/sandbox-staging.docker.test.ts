// The Sandbox stages the current catalog in each warm container as it joins the pool. A run
// whose tools are exactly those sends a start line without them; a catalog that changed while
// the container idled reaches the run in full, never the stale one. Real image, real pool, on
// each runtime the engine has: which catalog the code can read is a containment matter, and
// gVisor has its own pipes for the line staged while the container idles.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../test-support/docker.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import type { CallOutcome, SandboxTool } from "../core/ports/run-types.js";
import { SandboxContainer } from "./containers/sandbox-container.js";
import { Sandbox } from "./sandbox.js";
import { freezeTools, toolsJson } from "../core/ports/tools-json.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

const tool = (name: string): SandboxTool => ({
  name,
  stub: `async def ${name}() -> str: ...`,
  description: `the ${name} tool`,
  schema: null,
});
const OLD = freezeTools([tool("old_one"), tool("old_two")]);
const NEW = freezeTools([tool("new_one")]);

const echo = (name: string): Promise<CallOutcome> => Promise.resolve({ ok: true, value: name });
const CODE = `print(sorted(TOOLS), search_tools("one"))`;
const spyOnStarts = () => vi.spyOn(SandboxContainer.prototype, "sendStart");

/** A sandbox with one warm container, staged with what `staged` gives as it joins the pool. */
function stagingSandbox(
  runtime: SandboxRuntime,
  staged: () => readonly SandboxTool[] | null,
): Sandbox {
  return new Sandbox({
    engine: fx!.engine,
    image: fx!.image,
    owner: testOwner(),
    poolSize: 1,
    runtime,
    stagedTools: staged,
    // These tests change the catalog back to back; the pacing has a test of its own.
    catalogReviewMinIntervalMs: 0,
  });
}

describeEachRuntime(docker, "a sandbox staging its catalog in warm containers (%s)", (runtime) => {
  let current: readonly SandboxTool[] = OLD;
  let sandbox: Sandbox;
  let starts: ReturnType<typeof spyOnStarts>;
  const lastStart = (): string => String(starts.mock.calls.at(-1)?.[0]);

  // Made here, not as the block is collected: each runtime's block has its own warm container
  // and spy only while its tests run, so one block's afterAll finds no container of the other.
  beforeAll(() => {
    sandbox = stagingSandbox(runtime, () => current);
    starts = spyOnStarts();
  });

  afterAll(async () => {
    starts.mockRestore();
    await sandbox.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("a run with the staged catalog sends no tools at start and sees them all", async () => {
    expect(await sandbox.poolFilled()).toBe(1);
    const result = await sandbox.run({ code: CODE, tools: OLD }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['old_one', 'old_two'] ['old_one']\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
    expect(lastStart().length).toBeLessThan(toolsJson(OLD).length + 1024);
  });

  it("a catalog changed while the container idled reaches the run, not the staged one", async () => {
    await sandbox.settle();
    expect(await sandbox.poolFilled()).toBe(1); // staged with OLD
    current = NEW;
    const result = await sandbox.run({ code: CODE, tools: NEW }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
    expect(lastStart()).toContain(`"tools":${toolsJson(NEW)}`);
    // Its replacement got the new catalog staged: the next run sends none.
    await sandbox.settle();
    expect(await sandbox.poolFilled()).toBe(1);
    const next = await sandbox.run({ code: CODE, tools: NEW }, { onCall: echo });
    expect(next).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
  });

  // The code can walk its process's objects: it must find no catalog but its own.
  const PROBE = `import gc
print(sorted(TOOLS))
print(sorted(t["name"] for o in gc.get_objects() if type(o) is dict and o.get("type") == "catalog" for t in o["tools"]))`;

  it("a container staged with a catalog since withdrawn never runs the code: it could read it", async () => {
    await sandbox.settle();
    current = OLD;
    sandbox.catalogChanged();
    expect(await sandbox.poolFilled()).toBe(1); // staged with OLD
    // The catalog changes and the run comes before the sandbox is told (a race the app can meet).
    current = NEW;
    const result = await sandbox.run({ code: PROBE, tools: NEW }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['new_one']\n[]\n", error: null });
    expect(lastStart()).toContain(`"tools":${toolsJson(NEW)}`);
    // The host did not hand the run the staged container (the runner dropping its objects
    // would not clear the bytes from its memory): the one that ran had nothing staged.
    expect((starts.mock.contexts.at(-1) as SandboxContainer).staged).toBeNull();
  });

  it("a catalog change replaces the idle containers staged with another, so the next run is staged", async () => {
    await sandbox.settle();
    current = NEW;
    sandbox.catalogChanged();
    expect(await sandbox.poolFilled()).toBe(1);
    current = OLD;
    sandbox.catalogChanged();
    expect(await sandbox.poolFilled()).toBe(1);
    const result = await sandbox.run({ code: PROBE, tools: OLD }, { onCall: echo });
    // The runner keeps the staged tools it runs with, not the line they came in.
    expect(result).toMatchObject({ stdout: "['old_one', 'old_two']\n[]\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
  });
});

// The host's own side of staging: which start line goes out, and what staging a container that
// is gone does. Nothing here depends on the runtime (what the code sees is pinned above, on
// each), so it runs on the default one only.
describe.skipIf(!fx)("a sandbox staging its catalog, the host's side (runc)", () => {
  afterAll(async () => {
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("an equal but separately made list is compared by its text: staged", async () => {
    const sandbox = stagingSandbox("runc", () => NEW);
    const starts = spyOnStarts();
    const lastStart = (): string => String(starts.mock.calls.at(-1)?.[0]);
    try {
      expect(await sandbox.poolFilled()).toBe(1);
      const copy = NEW.map((t) => ({ ...t }));
      const result = await sandbox.run({ code: CODE, tools: copy }, { onCall: echo });
      expect(result).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
      expect(lastStart()).toContain('"tools":"staged"');
      // A list differing in one character of one description is not.
      await sandbox.settle();
      expect(await sandbox.poolFilled()).toBe(1);
      const changed = [{ ...NEW[0]!, description: "the new_one tool." }];
      await sandbox.run({ code: CODE, tools: changed }, { onCall: echo });
      expect(lastStart()).toContain('"description":"the new_one tool."');
    } finally {
      starts.mockRestore();
      await sandbox.close();
    }
  });

  it("staging a container that ended or was removed sends nothing and throws nothing", async () => {
    const killed = await SandboxContainer.start(fx!.engine, fx!.image, testOwner());
    const removed = await SandboxContainer.start(fx!.engine, fx!.image, testOwner());
    try {
      expect(await killed.ready).toBe(true);
      await killed.container.kill();
      await killed.ended;
      expect(killed.stage(toolsJson(OLD))).toBe(false);
      await removed.remove();
      expect(removed.stage(toolsJson(OLD))).toBe(false);
    } finally {
      await killed.remove();
      await removed.remove();
    }
  });

  it("stages the idle container when the catalog arrives, without replacing it", async () => {
    let current: readonly SandboxTool[] | null = null;
    const sandbox = stagingSandbox("runc", () => current);
    const starts = spyOnStarts();
    const stage = vi.spyOn(SandboxContainer.prototype, "stage");
    const removals = vi.spyOn(SandboxContainer.prototype, "remove");
    try {
      expect(await sandbox.poolFilled()).toBe(1); // nothing to stage yet
      expect(stage).not.toHaveBeenCalled();
      current = OLD;
      sandbox.catalogChanged();
      expect(stage).toHaveBeenCalledTimes(1);
      expect(removals).not.toHaveBeenCalled();
      const result = await sandbox.run({ code: CODE, tools: OLD }, { onCall: echo });
      expect(result).toMatchObject({
        stdout: "['old_one', 'old_two'] ['old_one']\n",
        error: null,
      });
      expect(String(starts.mock.calls.at(-1)?.[0])).toContain('"tools":"staged"');
    } finally {
      starts.mockRestore();
      stage.mockRestore();
      removals.mockRestore();
      await sandbox.close();
    }
  });
});
