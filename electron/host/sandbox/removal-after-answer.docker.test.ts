// A finished run's container is removed once the run's answer is out (RunHooks.removeAfter),
// so the engine's work of removing it does not slow the answer; code that sends its own `done`
// and runs on is still killed within REMOVAL_AFTER_ANSWER_MAX_MS.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../test-support/docker.js";
import { until } from "../../../test-support/wait.js";
import { REMOVAL_AFTER_ANSWER_MAX_MS } from "./containers/removals-after-answer.js";
import { SandboxContainer } from "./containers/sandbox-container.js";
import { Sandbox } from "./sandbox.js";

const on = await dockerOnRuntimes();
const never = new Promise<void>(() => undefined);

describeEachRuntime(on, "a run's container on %s, removed after its answer", (runtime) => {
  let sandbox: Sandbox;
  const docker = () => on.fx!.docker;
  const left = async () => (await leftoverContainers(docker())).length;

  beforeAll(() => {
    const { engine, image } = on.fx!;
    sandbox = new Sandbox({ engine, image, owner: testOwner(), poolSize: 0, runtime });
  });

  afterAll(async () => {
    await sandbox.close();
    expect(await leftoverContainers(docker())).toEqual([]);
  });

  it("stays until the answer is out, then goes", async () => {
    let answered = (): void => undefined;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    // Watched through the removal call, not the engine's list: on a loaded machine listing
    // could take longer than the bound after which the removal goes ahead anyway.
    const removals = vi.spyOn(SandboxContainer.prototype, "remove");
    try {
      const result = await sandbox.run({ code: "print(1)" }, { removeAfter: answer });
      expect(result.stdout).toBe("1\n");
      expect(removals).not.toHaveBeenCalled();
      answered();
      await until(() => Promise.resolve(removals.mock.calls.length > 0), "the removal begun");
    } finally {
      removals.mockRestore();
    }
    await until(async () => (await left()) === 0, "the container removed");
  });

  it("code that sends its own done and runs on is killed though no answer goes out", async () => {
    // Attack: the code shares the runner's process; it writes a `done` line to the protocol
    // pipe (any fd it finds) and goes on running, hoping to outlive its run.
    const code = [
      "import os, time",
      "for fd in range(3, 64):",
      "    try:",
      `        os.write(fd, b'{"type":"done","error":null}\\n')`,
      "    except OSError:",
      "        pass",
      "time.sleep(600)",
    ].join("\n");
    const result = await sandbox.run({ code }, { removeAfter: never });
    expect(result.stopped).toBeNull();
    // Killed at the bound, long before its sleep ends (the engine's kill adds its own time).
    expect(REMOVAL_AFTER_ANSWER_MAX_MS).toBeLessThan(30_000);
    await until(async () => (await left()) === 0, "the container killed", 30_000);
  });
});
