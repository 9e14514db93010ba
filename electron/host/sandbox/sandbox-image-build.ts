// Building the sandbox image from the UI, apart from sandbox-supervisor.ts (which decides when a build
// may start and owns the Sandbox): the build itself and its report, success or failure.

import type Dockerode from "dockerode";
import { buildSandboxImage, type BuildEvent, type ContextFile } from "./image.js";

export interface BuildReport {
  tag: string;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

export interface BuildCallbacks {
  onBuildEvent?: ((event: BuildEvent) => void) | undefined;
  onBuildFinished?: ((result: BuildReport) => void) | undefined;
}

/**
 * Builds the image, then runs `afterBuilt` (the supervisor makes its Sandbox) before reporting
 * success. Never rejects: a failed build is reported, not thrown.
 */
export function buildImageReported(
  docker: Dockerode,
  files: ContextFile[],
  tag: string,
  callbacks: BuildCallbacks,
  afterBuilt: () => Promise<void>,
): Promise<void> {
  const started = Date.now();
  return buildSandboxImage(docker, files, (event) => callbacks.onBuildEvent?.(event)).then(
    async () => {
      await afterBuilt();
      callbacks.onBuildFinished?.({
        tag,
        ok: true,
        error: null,
        durationMs: Date.now() - started,
      });
    },
    (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      callbacks.onBuildFinished?.({
        tag,
        ok: false,
        error: message,
        durationMs: Date.now() - started,
      });
    },
  );
}
