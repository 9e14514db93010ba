// The engine boundary's contract, run on each implementation there is: the Docker-API one on the
// machine's Docker and on Podman's compatible service. A new backend (docs/scale-out.md) joins
// this list and must pass the same tests: every method the sandbox, the pool, the sweep, the
// image build and the image status use.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { dockerOnRuntimes, enginesUnderTest, testOwner } from "../../../../test-support/docker.js";
import { until } from "../../../../test-support/wait.js";
import { SandboxContainer } from "../containers/sandbox-container.js";
import { IMAGE_REPOSITORY } from "../image.js";
import { runInContainer } from "../runner/run-session.js";
import { sweepOrphanContainers } from "../sandbox.js";
import type { SandboxEngine } from "./sandbox-engine.js";

const docker = await dockerOnRuntimes();
const engines = (await enginesUnderTest(docker)).filter((e) => e.runtime === "runc");
const owner = testOwner();

describe.skipIf(!docker.fx).each(engines)("the engine boundary on $engine", ({ fx }) => {
  const engine: SandboxEngine = fx.engine;

  it("answers, names its runtimes, has and lists the image", async () => {
    await engine.ping();
    expect(await engine.runtimes()).toContain("runc");
    expect(await engine.imagePresent(fx.image)).toBe(true);
    expect(await engine.imagePresent("codemode-sandbox:not-there")).toBe(false);
    const listed = await engine.listImages(IMAGE_REPOSITORY);
    const tags = listed.flatMap((image) => image.tags);
    expect(tags.some((tag) => tag.endsWith(fx.image))).toBe(true);
    expect(listed.every((image) => image.sizeBytes > 0 && image.created > 0)).toBe(true);
  });

  it("creates, attaches and starts a sandbox whose runner speaks the protocol, then removes it", async () => {
    const sandbox = await SandboxContainer.start(engine, fx.image, owner, "runc", false);
    try {
      expect(await sandbox.ready).toBe(true);
      expect(await sandbox.container.inspect()).toEqual({ running: true });
      const result = await runInContainer(
        sandbox,
        { code: "print(6 * 7)" },
        {},
        { deadlineCeilingSeconds: 30 },
      );
      expect(result).toMatchObject({ stdout: "42\n", error: null });
      expect(await sandbox.exit()).toEqual({ exitCode: 0, oomKilled: false });
    } finally {
      await sandbox.remove();
    }
    expect(await sandbox.container.inspect()).toBeNull();
  });

  it("kills a running sandbox, and its wait says so", async () => {
    const created = await engine.createSandbox({
      image: fx.image,
      nonce: randomBytes(8).toString("hex"),
      owner,
      runtime: "runc",
      preload: false,
    });
    try {
      const attach = await created.attach();
      await created.start();
      await created.kill();
      await attach.ended;
      const exit = await created.wait();
      expect(exit.exitCode).not.toBe(0);
      await until(async () => (await created.inspect())?.running === false, "the kill to land");
    } finally {
      await created.remove();
    }
  });

  it("lists this install's sandboxes by label, and sweeps a leftover whose owner is gone, only that", async () => {
    const gone = await SandboxContainer.start(engine, fx.image, { ...owner, pid: 999_993 });
    const live = await SandboxContainer.start(engine, fx.image, owner);
    try {
      const ids = (await engine.listSandboxes(owner.install)).map((listed) => listed.id);
      expect(ids).toEqual(expect.arrayContaining([gone.id, live.id]));
      expect(await engine.listSandboxes("some-other-install")).toEqual([]);
      const removed = await sweepOrphanContainers(engine, owner);
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await engine.container(gone.id).inspect()).toBeNull();
      expect(await engine.container(live.id).inspect()).toEqual({ running: true });
    } finally {
      await live.remove();
      await gone.remove();
    }
  });
});
