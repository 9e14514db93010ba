import type { TestProject } from "vitest/node";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The sandbox image tag, or why Docker tests cannot run here. */
    sandboxImage: { ok: true; tag: string } | { ok: false; reason: string };
  }
}

/**
 * Builds the sandbox image once per test run (a no-op when the engine already has the
 * tag), through the same code path as `codemode image build`.
 */
export default async function setup(project: TestProject): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") {
    project.provide("sandboxImage", { ok: false, reason: status.message });
    return;
  }
  const files = readContext(sandboxImageDir());
  const tag = imageTagFor(files);
  if (!(await status.engine.imagePresent(tag))) {
    process.stderr.write(`building the sandbox image ${tag} for the tests\n`);
    await status.engine.buildImage(files, (event) => {
      if (event.kind === "step") process.stderr.write(`  ${event.text}\n`);
    });
  }
  project.provide("sandboxImage", { ok: true, tag });
}
