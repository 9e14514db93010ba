// The set-up the workspace Docker tests share: a sandbox with a warm container and a workspace
// store, both in a fresh temporary directory, and one call that takes them down again.
import path from "node:path";
import { expect } from "vitest";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { SlotRoot } from "../electron/host/sandbox/workspaces/workspace-slots.js";
import {
  WorkspaceStore,
  type WorkspaceLimits,
} from "../electron/host/sandbox/workspaces/workspace-store.js";
import type { SandboxRuntime } from "../shared/settings.js";
import { leftoverContainers, testOwner, type DockerFixture } from "./docker.js";
import { tempDir } from "./temp-dir.js";

/** How long a run of these tests may take before the sandbox stops it. */
const DEADLINE_SECONDS = 120;

export interface WorkspaceSandbox {
  sandbox: Sandbox;
  store: WorkspaceStore;
  /** Closes the sandbox, then fails the test if a container of this process is left. */
  close: () => Promise<void>;
}

/**
 * A sandbox on `runtime` keeping one warm container, filled before this returns: the runs of a
 * test take warm containers, so a workspace reaches one made before it was named. Its slots and
 * the store's workspaces live under a tempDir(`prefix`) (removed by removeTempDirs). The store
 * reads `limits` on every use, so a test may change them between runs.
 */
export async function workspaceSandbox(
  fx: DockerFixture,
  runtime: SandboxRuntime,
  limits: WorkspaceLimits,
  prefix: string,
): Promise<WorkspaceSandbox> {
  const root = tempDir(prefix);
  const store = new WorkspaceStore(path.join(root, "workspaces"), () => limits);
  const sandbox = new Sandbox({
    ...{ engine: fx.engine, image: fx.image, owner: testOwner(), poolSize: 1, runtime },
    slots: new SlotRoot(path.join(root, "slots")),
    deadlineSeconds: DEADLINE_SECONDS,
  });
  const close = async (): Promise<void> => {
    await sandbox.close();
    expect(await leftoverContainers(fx.docker)).toEqual([]);
  };
  try {
    expect(await sandbox.poolFilled()).toBe(1);
  } catch (error) {
    // The test's afterAll has nothing to close yet: the containers must still go.
    await sandbox.close();
    throw error;
  }
  return { sandbox, store, close };
}
