import type Dockerode from "dockerode";
import { findDocker, endpointContextFromProcess } from "../docker/docker-status.js";
import { dataDir, homeId, sandboxImageDir } from "../paths.js";
import { imageTagFor, readContext, type ContextFile } from "../sandbox/image.js";
import { UserError } from "./cli-io.js";

export interface DockerContext {
  docker: Dockerode;
  endpoint: string;
  files: ContextFile[];
  tag: string;
  home: string;
  homeId: string;
}

/** Docker and the image's expected tag, or a UserError saying exactly what to do. */
export async function dockerContext(env: NodeJS.ProcessEnv): Promise<DockerContext> {
  const status = await findDocker({
    ...endpointContextFromProcess(),
    dockerHost: env.DOCKER_HOST || undefined,
  });
  if (status.state !== "ready") throw new UserError(status.message);
  const files = readContext(sandboxImageDir());
  const home = dataDir(env);
  return {
    docker: status.docker,
    endpoint: status.endpoint,
    files,
    tag: imageTagFor(files),
    home,
    homeId: homeId(home),
  };
}

export async function requireImage(ctx: DockerContext): Promise<void> {
  try {
    await ctx.docker.getImage(ctx.tag).inspect();
  } catch {
    throw new UserError(
      `The sandbox image ${ctx.tag} is not built yet. Run \`codemode image build\` (it takes a few minutes once).`,
    );
  }
}
