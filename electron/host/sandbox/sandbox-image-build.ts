// Building the sandbox image from the UI, apart from sandbox-supervisor.ts (which decides when a build
// may start and owns the Sandbox): the base image made present the way `codemode image build`
// does it (from another engine this machine reaches, or an archive file the user names), the
// build itself, and its report, success or failure.

import {
  contextBaseImage,
  ensureBaseImage,
  otherEngineSources,
  type BaseImageSource,
} from "./container-engine/base-image.js";
import type { SandboxEngine } from "./container-engine/sandbox-engine.js";
import type { BuildEvent, ContextFile } from "./image.js";

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

/** Where a missing base image may come from: the other engines this machine reaches. */
export type BaseImageSources = (
  excludeEndpoint: string,
) => Promise<{ sources: BaseImageSource[]; close(): void }>;

export interface BuildRequest {
  engine: SandboxEngine;
  files: ContextFile[];
  tag: string;
  /** A `docker save` archive holding the base image, instead of looking at other engines. */
  baseFrom?: string | undefined;
  /** The other engines to look at (otherEngineSources unless said). */
  otherEngines?: BaseImageSources | undefined;
}

/** Makes the base image present on the engine, saying what it does as build log lines. */
async function baseImage(request: BuildRequest, say: (text: string) => void): Promise<void> {
  // Other engines are looked for only when this one lacks the base: probing them all costs.
  const image = contextBaseImage(request.files);
  if (image === null || (await request.engine.imagePresent(image))) return;
  const others =
    request.baseFrom === undefined
      ? await (request.otherEngines ?? otherEngineSources)(request.engine.endpoint)
      : null;
  try {
    const sources = others?.sources ?? [{ kind: "archive" as const, file: request.baseFrom ?? "" }];
    const base = await ensureBaseImage(request.engine, request.files, sources, say);
    if (base.done === "left-to-pull" && base.looked.length > 0) {
      say(
        `no other engine has ${base.image} (looked at ${base.looked.join(", ")}): the build pulls it`,
      );
    }
  } finally {
    others?.close();
  }
}

/**
 * Makes the base image present, builds the image, then runs `afterBuilt` (the supervisor makes
 * its Sandbox) before reporting success. Never rejects: a failed build is reported, not thrown.
 */
export function buildImageReported(
  request: BuildRequest,
  callbacks: BuildCallbacks,
  afterBuilt: () => Promise<void>,
): Promise<void> {
  const started = Date.now();
  const { engine, files, tag } = request;
  const onEvent = (event: BuildEvent): void => callbacks.onBuildEvent?.(event);
  return baseImage(request, (text) => onEvent({ kind: "log", text }))
    .then(() => engine.buildImage(files, onEvent))
    .then(
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
