// Building the sandbox image on a Docker-API engine (the classic builder, which Podman's
// compatible service speaks too): the context as a tar, the engine's progress as BuildEvents.
import type Dockerode from "dockerode";
import {
  contextHash,
  contextTar,
  imageTagFor,
  type BuildEvent,
  type ContextFile,
} from "../image.js";

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
export async function dockerBuildImage(
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
