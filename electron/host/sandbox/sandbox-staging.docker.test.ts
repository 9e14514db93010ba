// The Sandbox stages the current catalog in each warm container as it joins the pool. A run
// whose tools are exactly those sends a start line without them; a catalog that changed while
// the container idled reaches the run in full, never the stale one. Real image, real pool.
import { afterAll, describe, expect, it, vi } from "vitest";
import { dockerOrSkip, leftoverContainers, testOwner } from "../../../test-support/docker.js";
import type { CallOutcome, SandboxTool } from "./run-types.js";
import { SandboxContainer } from "./sandbox-container.js";
import { Sandbox } from "./sandbox.js";
import { freezeTools, toolsJson } from "./tools-json.js";

const fx = await dockerOrSkip();

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

describe.skipIf(!fx)("a sandbox staging its catalog in warm containers", () => {
  let current: readonly SandboxTool[] = OLD;
  const sandbox = fx
    ? new Sandbox({
        docker: fx.docker,
        image: fx.image,
        owner: testOwner(),
        poolSize: 1,
        stagedTools: () => current,
      })
    : null;
  const starts = vi.spyOn(SandboxContainer.prototype, "sendStart");
  const lastStart = (): string => String(starts.mock.calls.at(-1)?.[0]);

  afterAll(async () => {
    starts.mockRestore();
    await sandbox?.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("a run with the staged catalog sends no tools at start and sees them all", async () => {
    expect(await sandbox!.poolFilled()).toBe(1);
    const result = await sandbox!.run({ code: CODE, tools: OLD }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['old_one', 'old_two'] ['old_one']\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
    expect(lastStart().length).toBeLessThan(toolsJson(OLD).length + 1024);
  });

  it("a catalog changed while the container idled reaches the run, not the staged one", async () => {
    await sandbox!.settle();
    expect(await sandbox!.poolFilled()).toBe(1); // staged with OLD
    current = NEW;
    const result = await sandbox!.run({ code: CODE, tools: NEW }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
    expect(lastStart()).toContain(`"tools":${toolsJson(NEW)}`);
    // Its replacement got the new catalog staged: the next run sends none.
    await sandbox!.settle();
    expect(await sandbox!.poolFilled()).toBe(1);
    const next = await sandbox!.run({ code: CODE, tools: NEW }, { onCall: echo });
    expect(next).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
  });

  it("an equal but separately made list is compared by its text: staged", async () => {
    await sandbox!.settle();
    expect(await sandbox!.poolFilled()).toBe(1);
    const copy = NEW.map((t) => ({ ...t }));
    const result = await sandbox!.run({ code: CODE, tools: copy }, { onCall: echo });
    expect(result).toMatchObject({ stdout: "['new_one'] ['new_one']\n", error: null });
    expect(lastStart()).toContain('"tools":"staged"');
    // A list differing in one character of one description is not.
    await sandbox!.settle();
    expect(await sandbox!.poolFilled()).toBe(1);
    const changed = [{ ...NEW[0]!, description: "the new_one tool." }];
    await sandbox!.run({ code: CODE, tools: changed }, { onCall: echo });
    expect(lastStart()).toContain('"description":"the new_one tool."');
  });

  it("staging a container that ended or was removed sends nothing and throws nothing", async () => {
    const killed = await SandboxContainer.start(fx!.docker, fx!.image, testOwner());
    const removed = await SandboxContainer.start(fx!.docker, fx!.image, testOwner());
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
});
