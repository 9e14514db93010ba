// Switching the runtime of a live Sandbox: the warm container made under the old runtime must
// not serve the next run (it would run the code with the isolation the user just left).
import os from "node:os";
import { afterAll, expect, it } from "vitest";
import {
  describeOnRunsc,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../test-support/docker.js";
import { Sandbox } from "./sandbox.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;
const KERNEL = "import os\nprint(os.uname().release)";

describeOnRunsc(docker, "a sandbox's runtime, switched", () => {
  let sandbox: Sandbox | null = null;

  afterAll(async () => {
    await sandbox?.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("the next run, and the warm container after it, use the new runtime", async () => {
    sandbox = new Sandbox({
      engine: fx!.engine,
      image: fx!.image,
      owner: testOwner(),
      poolSize: 1,
    });
    expect(await sandbox.poolFilled()).toBe(1);
    sandbox.setRuntime("runsc");
    // gVisor's kernel reports 4.4.0; the warm runc container made before the switch is gone.
    expect((await sandbox.run({ code: KERNEL })).stdout).toBe("4.4.0\n");
    expect(await sandbox.poolFilled()).toBe(1);
    expect((await sandbox.run({ code: KERNEL })).stdout).toBe("4.4.0\n");
    sandbox.setRuntime("runc");
    // The run says which runtime its container was made with (the audit names it).
    const told: string[] = [];
    const onContainer = ({ runtime }: { runtime: string }) => told.push(runtime);
    expect((await sandbox.run({ code: KERNEL }, { onContainer })).stdout).toBe(`${os.release()}\n`);
    expect(told).toEqual(["runc"]);
    await sandbox.settle();
  });
});
