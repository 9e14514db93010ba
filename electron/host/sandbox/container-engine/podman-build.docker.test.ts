// The sandbox image built on Podman's Docker-compatible service, as `codemode image build
// --engine` and the app's Build button do it, on an engine that cannot pull its base image (no
// registry is reachable here): the base is loaded first, from the machine's Docker engine or from
// an archive file (`docker save`), then the Dockerfile builds as it does on Docker. The build
// goes through the Build button's own path (buildImageReported, as the supervisor starts it).
import { createWriteStream } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, testOwner } from "../../../../test-support/docker.js";
import {
  podmanInstalled,
  startPrivatePodman,
  type PrivatePodman,
} from "../../../../test-support/private-podman.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { sandboxImageDir } from "../../util/paths.js";
import { imageTagFor, readContext, type BuildEvent } from "../image.js";
import { sandboxImageStatus } from "../image-status.js";
import { Sandbox } from "../sandbox.js";
import { buildImageReported, type BuildReport } from "../sandbox-image-build.js";
import { contextBaseImage, ensureBaseImage } from "./base-image.js";
import { DockerApiEngine } from "./docker-api-engine.js";

/** apt-get of Python and its libraries inside the build: minutes on a loaded 2-core machine. */
const BUILD_TIMEOUT_MS = 20 * 60_000;

const fx = await dockerOrSkip();
if (fx && !podmanInstalled() && process.env.CI === "true") {
  throw new Error("podman is required in CI (.ci/run installs it)");
}

describe.skipIf(!fx || !podmanInstalled())("the sandbox image built on Podman", () => {
  const files = readContext(sandboxImageDir());
  const base = contextBaseImage(files)!;
  let podman: PrivatePodman;
  const podmanEngine = (): DockerApiEngine =>
    new DockerApiEngine({ docker: podman.runc.docker, endpoint: "podman", kind: "podman" });

  afterAll(async () => {
    await podman?.destroy();
    removeTempDirs();
  });

  it("loads the missing base image from the machine's engine, or from an archive file", async () => {
    podman = await startPrivatePodman();
    const target = podmanEngine();
    expect(await target.imagePresent(base)).toBe(false);
    const fromEngine = await ensureBaseImage(target, files, [
      { kind: "engine", name: "docker", engine: fx!.engine },
    ]);
    expect(fromEngine).toEqual({ done: "loaded", image: base, from: "docker" });
    expect(await ensureBaseImage(target, files, [])).toEqual({ done: "present", image: base });

    await podman.runc.docker.getImage(base).remove({ force: true });
    const archive = path.join(tempDir("cm-base-"), "base.tar");
    await pipeline(
      (await fx!.docker.getImage(base).get()) as unknown as Readable,
      createWriteStream(archive),
    );
    expect(await ensureBaseImage(target, files, [{ kind: "archive", file: archive }])).toEqual({
      done: "loaded",
      image: base,
      from: archive,
    });
  });

  it(
    "builds the image there, and a hardened run works on it",
    { timeout: BUILD_TIMEOUT_MS },
    async () => {
      const target = podmanEngine();
      // The Build button on an engine without the base: it is loaded from the other engine found.
      await podman.runc.docker.getImage(base).remove({ force: true });
      const events: BuildEvent[] = [];
      const reports: BuildReport[] = [];
      const tag = imageTagFor(files);
      await buildImageReported(
        {
          engine: target,
          files,
          tag,
          otherEngines: () =>
            Promise.resolve({
              sources: [{ kind: "engine", name: "docker", engine: fx!.engine }],
              close: () => undefined,
            }),
        },
        { onBuildEvent: (e) => events.push(e), onBuildFinished: (r) => reports.push(r) },
        () => Promise.resolve(),
      );
      expect(reports).toMatchObject([{ tag, ok: true, error: null }]);
      expect(events).toContainEqual({
        kind: "log",
        text: `the engine lacks the base image ${base}: loading it from docker`,
      });
      // Podman names it localhost/codemode-sandbox:TAG; the status reads it as the current tag.
      const listed = (await podman.runc.docker.listImages()).map((i) => i.RepoTags);
      expect((await sandboxImageStatus(target, files)).present, JSON.stringify(listed)).toBe(true);
      const sandbox = new Sandbox({ engine: target, image: tag, owner: testOwner(), poolSize: 1 });
      try {
        await sandbox.poolFilled();
        const result = await sandbox.run({
          code: "import numpy, os\nprint(numpy.arange(3).sum(), os.getuid())",
        });
        expect(result).toMatchObject({ stdout: "3 65534\n", error: null });
      } finally {
        await sandbox.close();
      }
    },
  );
});
