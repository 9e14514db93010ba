// The sandbox most runtime Docker tests share: no warm pool, so each run starts its own
// container, taken down after the block's tests with a check that none is left behind.
import { afterAll, expect } from "vitest";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import type { SandboxRuntime } from "../shared/settings.js";
import { leftoverContainers, testOwner, type DockerFixture } from "./docker.js";

/**
 * A sandbox on `runtime` keeping no warm container. Call it in the body of a
 * describeEachRuntime block: the block's afterAll closes it, then fails if a container of this
 * process is left.
 */
export function coldSandbox(fx: DockerFixture, runtime: SandboxRuntime): Sandbox {
  const { engine, image } = fx;
  const sandbox = new Sandbox({ engine, image, owner: testOwner(), poolSize: 0, runtime });
  afterAll(async () => {
    await sandbox.close();
    expect(await leftoverContainers(fx.docker)).toEqual([]);
  });
  return sandbox;
}
