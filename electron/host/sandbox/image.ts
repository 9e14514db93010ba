import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import type Dockerode from "dockerode";
import { pack } from "tar-stream";

export const IMAGE_REPOSITORY = "codemode-sandbox";

export interface ContextFile {
  /** Path inside the context, with forward slashes. */
  name: string;
  content: Buffer;
}

/** Files of the build context in a fixed order, so the hash depends only on content. */
export function readContext(dir: string): ContextFile[] {
  const files: ContextFile[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(dir, rel)).sort()) {
      const relPath = rel ? `${rel}/${entry}` : entry;
      const full = path.join(dir, relPath);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(relPath);
      else if (stat.isFile()) files.push({ name: relPath, content: readFileSync(full) });
    }
  };
  walk("");
  return files;
}

export function contextHash(files: readonly ContextFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file.name}\0${file.content.length}\0`);
    hash.update(file.content);
  }
  return hash.digest("hex");
}

/** `codemode-sandbox:<first 12 hex of the context hash>`: a changed context is a new tag. */
export function imageTagFor(files: readonly ContextFile[]): string {
  return `${IMAGE_REPOSITORY}:${contextHash(files).slice(0, 12)}`;
}

export function contextTar(files: readonly ContextFile[]): Readable {
  const tar = pack();
  for (const file of files) {
    // Fixed owner, mode and time: the image does not depend on the checkout's metadata.
    tar.entry({ name: file.name, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 }, file.content);
  }
  tar.finalize();
  // tar-stream's Pack is a streamx Readable, which dockerode pipes like a Node one.
  return tar as unknown as Readable;
}

export type BuildEvent =
  { kind: "step"; step: number; total: number; text: string } | { kind: "log"; text: string };

interface DockerBuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
  aux?: { ID?: string };
}

/**
 * Builds the sandbox image from its context. Docker reports a failed build as an event
 * with `error` in an otherwise successful stream, so each event is checked here and
 * the first error rejects the build.
 */
export async function buildSandboxImage(
  docker: Dockerode,
  files: readonly ContextFile[],
  onEvent: (event: BuildEvent) => void = () => undefined,
): Promise<string> {
  const tag = imageTagFor(files);
  const stream = await docker.buildImage(contextTar(files), {
    t: tag,
    rm: true,
    forcerm: true,
    labels: { "codemode.context-hash": contextHash(files) },
  });
  await new Promise<void>((resolve, reject) => {
    let failure: string | null = null;
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        if (err) reject(err);
        else if (failure !== null) reject(new Error(`the sandbox image did not build: ${failure}`));
        else resolve();
      },
      (event: DockerBuildEvent) => {
        if (event.error || event.errorDetail) {
          failure ??= (event.errorDetail?.message ?? event.error ?? "unknown error").trim();
          return;
        }
        // trimEnd, not /\s+$/: build output is text we do not control, and that regex backtracks.
        const text = (event.stream ?? event.status ?? "").trimEnd();
        if (!text) return;
        const step = /^Step (\d+)\/(\d+) :/.exec(text);
        if (step) onEvent({ kind: "step", step: Number(step[1]), total: Number(step[2]), text });
        else onEvent({ kind: "log", text });
      },
    );
  });
  return tag;
}

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
  docker: Dockerode,
  files: readonly ContextFile[],
): Promise<ImageStatus> {
  const tag = imageTagFor(files);
  const images = await docker.listImages({ filters: { reference: [IMAGE_REPOSITORY] } });
  // Podman names a local image localhost/NAME:TAG, or docker.io/library/NAME:TAG once built.
  const names = [tag, `localhost/${tag}`, `docker.io/library/${tag}`];
  const current = images.find((image) => (image.RepoTags ?? []).some((t) => names.includes(t)));
  const stale = images
    .filter((image) => image !== current)
    .sort((a, b) => b.Created - a.Created)
    .flatMap((image) => image.RepoTags ?? []);
  return {
    tag,
    present: current !== undefined,
    stale,
    sizeBytes: current?.Size ?? null,
    created: current ? new Date(current.Created * 1000).toISOString() : null,
  };
}
