// The engine boundary's contract, run on each implementation there is: the Docker-API one on the
// machine's Docker and on Podman's compatible service. A new backend (docs/scale-out.md) joins
// this list and must pass the same tests.
import { afterAll, describe, expect, it } from "vitest";
import { dockerOnRuntimes, enginesUnderTest, testOwner } from "../../../../test-support/docker.js";
import { runInContainer } from "../runner/run-session.js";
import { DockerApiEngine, type SandboxEngine } from "./sandbox-engine.js";

const docker = await dockerOnRuntimes();
const engines = (await enginesUnderTest(docker)).filter((e) => e.runtime === "runc");
const owner = testOwner();

describe.skipIf(!docker.fx).each(engines)("the engine boundary on $engine", ({ engine, fx }) => {
  const sandboxEngine: SandboxEngine = new DockerApiEngine({
    docker: fx.docker,
    endpoint: engine,
    name: engine,
  });
  afterAll(() => sandboxEngine.close());

  it("answers, names its runtimes, has the image", async () => {
    await sandboxEngine.ping();
    expect(await sandboxEngine.runtimes()).toContain("runc");
    expect(await sandboxEngine.imagePresent(fx.image)).toBe(true);
    expect(await sandboxEngine.imagePresent("codemode-sandbox:not-there")).toBe(false);
  });

  it("starts a sandbox whose runner speaks the protocol through the attach, then removes it", async () => {
    const sandbox = await sandboxEngine.startSandbox(fx.image, owner, "runc", false);
    try {
      expect(await sandbox.ready).toBe(true);
      const result = await runInContainer(
        sandbox as never,
        { code: "print(6 * 7)" },
        {},
        { deadlineCeilingSeconds: 30 },
      );
      expect(result).toMatchObject({ stdout: "42\n", error: null });
    } finally {
      await sandbox.remove();
    }
  });

  it("sweeps a leftover of this install whose owner is gone, and only that", async () => {
    const gone = await sandboxEngine.startSandbox(
      fx.image,
      { ...owner, pid: 999_993 },
      "runc",
      false,
    );
    const live = await sandboxEngine.startSandbox(fx.image, owner, "runc", false);
    try {
      const removed = await sandboxEngine.sweep(owner);
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await gone.exit()).toMatchObject({ exitCode: null });
    } finally {
      await live.remove();
      await gone.remove();
    }
  });
});
