// Whether the engine holds the sandbox image of the current context, and which older ones.
import type { SandboxEngine } from "./container-engine/sandbox-engine.js";
import { IMAGE_REPOSITORY, imageTagFor, type ContextFile } from "./image.js";

export interface ImageStatus {
  /** The tag the current context builds to. */
  tag: string;
  present: boolean;
  /** Older sandbox images on the engine, newest first (a rebuild is due). */
  stale: string[];
  sizeBytes: number | null;
  created: string | null;
}

export async function sandboxImageStatus(
  engine: Pick<SandboxEngine, "listImages">,
  files: readonly ContextFile[],
): Promise<ImageStatus> {
  const tag = imageTagFor(files);
  const images = await engine.listImages(IMAGE_REPOSITORY);
  // Podman names a local image localhost/NAME:TAG, or docker.io/library/NAME:TAG once built.
  const names = [tag, `localhost/${tag}`, `docker.io/library/${tag}`];
  const current = images.find((image) => image.tags.some((t) => names.includes(t)));
  const stale = images
    .filter((image) => image !== current)
    .sort((a, b) => b.created - a.created)
    .flatMap((image) => image.tags);
  return {
    tag,
    present: current !== undefined,
    stale,
    sizeBytes: current?.sizeBytes ?? null,
    created: current ? new Date(current.created * 1000).toISOString() : null,
  };
}
