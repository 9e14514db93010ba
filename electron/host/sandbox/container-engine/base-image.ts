// Before the sandbox image is built on an engine, its base image (the Dockerfile's FROM) must be
// there or pullable. An engine that lacks it gets it loaded from another engine this machine
// reaches (the local Docker, when building on Podman or a remote engine), or from an archive
// file the user names; only when neither has it is the build left to pull it.
import type Dockerode from "dockerode";
import type { ContextFile } from "../image.js";
import { addressLabel } from "./engine-address.js";
import { engineCandidates } from "./engine-candidates.js";
import { processConnectEnv } from "./engine-connect.js";
import { probeCandidate, processCandidateEnv } from "./engine-detect.js";
import { baseImageOf, copyImage, hasImage, loadArchiveFile } from "./image-transfer.js";

export type BaseImageSource =
  { kind: "engine"; name: string; docker: Dockerode } | { kind: "archive"; file: string };

export type BaseImageOutcome =
  | { done: "present"; image: string }
  | { done: "loaded"; image: string; from: string }
  /** Not here and no source has it: the build pulls it (and says so if it cannot). */
  | { done: "left-to-pull"; image: string; looked: string[] }
  | { done: "none" };

/** The base image the context's Dockerfile names. */
export function contextBaseImage(files: readonly ContextFile[]): string | null {
  const dockerfile = files.find((file) => file.name === "Dockerfile");
  return dockerfile ? baseImageOf(dockerfile.content.toString("utf8")) : null;
}

/**
 * Makes sure `target` has the context's base image, loading it from the first source that has
 * it (an archive file is taken as holding it). `say` tells the user what is done.
 */
export async function ensureBaseImage(
  target: Dockerode,
  files: readonly ContextFile[],
  sources: readonly BaseImageSource[],
  say: (line: string) => void = () => undefined,
): Promise<BaseImageOutcome> {
  const image = contextBaseImage(files);
  if (image === null) return { done: "none" };
  if (await hasImage(target, image)) return { done: "present", image };
  const looked: string[] = [];
  for (const source of sources) {
    if (source.kind === "archive") {
      say(`loading the base image ${image} from ${source.file}`);
      await loadArchiveFile(target, source.file);
      if (!(await hasImage(target, image))) {
        throw new Error(
          `${source.file} did not hold ${image}: save it with docker save -o FILE ${image}`,
        );
      }
      return { done: "loaded", image, from: source.file };
    }
    looked.push(source.name);
    if (!(await hasImage(source.docker, image))) continue;
    say(`the engine lacks the base image ${image}: loading it from ${source.name}`);
    await copyImage(source.docker, target, image);
    return { done: "loaded", image, from: source.name };
  }
  return { done: "left-to-pull", image, looked };
}

/**
 * The other engines this machine reaches (every candidate that answers but the one at
 * `excludeUrl`), as sources; `close` ends their connections.
 */
export async function otherEngineSources(
  excludeUrl: string,
): Promise<{ sources: BaseImageSource[]; close(): void }> {
  const env = await processCandidateEnv();
  const connectEnv = processConnectEnv();
  const { candidates } = engineCandidates(env);
  const looks = await Promise.all(
    candidates
      .filter((c) => addressLabel(c.address) !== excludeUrl)
      .map((c) => probeCandidate(c, connectEnv, true)),
  );
  const sources: BaseImageSource[] = looks.flatMap((look) =>
    look.connection
      ? [
          {
            kind: "engine" as const,
            name: look.probe.candidate.name,
            docker: look.connection.docker,
          },
        ]
      : [],
  );
  return { sources, close: () => looks.forEach((look) => look.connection?.close()) };
}
