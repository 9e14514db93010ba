// Before the sandbox image is built on an engine, its base image (the Dockerfile's FROM) must be
// there or pullable. An engine that lacks it gets it loaded from another engine this machine
// reaches (the local Docker, when building on Podman or a remote engine), or from an archive
// file the user names; only when neither has it is the build left to pull it.
import { createReadStream } from "node:fs";
import type { ContextFile } from "../image.js";
import { DockerApiEngine } from "./docker-api-engine.js";
import { addressLabel } from "./engine-address.js";
import { engineCandidates } from "./engine-candidates.js";
import { processConnectEnv } from "./engine-connect.js";
import { probeCandidate, processCandidateEnv } from "./engine-detect.js";
import { baseImageOf } from "./image-transfer.js";
import type { SandboxEngine } from "./sandbox-engine.js";

type ImageHolder = Pick<SandboxEngine, "imagePresent" | "loadImage" | "saveImage">;

export type BaseImageSource =
  { kind: "engine"; name: string; engine: ImageHolder } | { kind: "archive"; file: string };

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
  target: ImageHolder,
  files: readonly ContextFile[],
  sources: readonly BaseImageSource[],
  say: (line: string) => void = () => undefined,
): Promise<BaseImageOutcome> {
  const image = contextBaseImage(files);
  if (image === null) return { done: "none" };
  if (await target.imagePresent(image)) return { done: "present", image };
  const looked: string[] = [];
  for (const source of sources) {
    if (source.kind === "archive") {
      say(`loading the base image ${image} from ${source.file}`);
      await target.loadImage(createReadStream(source.file));
      if (!(await target.imagePresent(image))) {
        throw new Error(
          `${source.file} did not hold ${image}: save it with docker save -o FILE ${image}`,
        );
      }
      return { done: "loaded", image, from: source.file };
    }
    looked.push(source.name);
    if (!(await source.engine.imagePresent(image))) continue;
    say(`the engine lacks the base image ${image}: loading it from ${source.name}`);
    await target.loadImage(await source.engine.saveImage(image));
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
            engine: new DockerApiEngine({
              docker: look.connection.docker,
              endpoint: addressLabel(look.probe.candidate.address),
            }),
          },
        ]
      : [],
  );
  return { sources, close: () => looks.forEach((look) => look.connection?.close()) };
}
