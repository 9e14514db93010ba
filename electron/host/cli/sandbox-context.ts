import type Dockerode from "dockerode";
import { findDocker, endpointContextFromProcess } from "../docker/docker-status.js";
import { mkdir } from "node:fs/promises";
import { LOCAL_ACCESS_MODES } from "../../../shared/limits.js";
import { checkDataDirTrust, DataDirTrustError } from "../local-access/data-dir-trust.js";
import { dataDir, sandboxImageDir } from "../paths.js";
import { currentOwner, type ContainerOwner } from "../sandbox/container-owner.js";
import { ensureInstallId, INSTALL_ID_FILE } from "../sandbox/install-id.js";
import { imageTagFor, readContext, type ContextFile } from "../sandbox/image.js";
import { UserError } from "./cli-io.js";
import {
  sandboxRuntimeSchema,
  SANDBOX_RUNTIMES,
  type SandboxRuntime,
} from "../../../shared/settings.js";
import { engineRuntimes, missingRuntimeMessage } from "../docker/docker-runtimes.js";

/** Help text of --runtime, shared by `run` and `serve`. */
export const RUNTIME_HELP = `  --runtime R    container runtime: runc (default) or runsc (gVisor, stronger isolation,
                 slower start; Docker must have it registered)`;

/** The --runtime value, runc when not given; anything else is a UserError naming the choices. */
export function parseRuntimeFlag(value: string | undefined): SandboxRuntime {
  if (value === undefined) return "runc";
  const parsed = sandboxRuntimeSchema.safeParse(value);
  if (!parsed.success) {
    throw new UserError(
      `--runtime takes ${SANDBOX_RUNTIMES.join(" or ")}, not ${JSON.stringify(value)}`,
    );
  }
  return parsed.data;
}

/** A runtime the engine lacks is refused before any container is made, naming those it has. */
export async function requireRuntime(ctx: DockerContext, runtime: SandboxRuntime): Promise<void> {
  const message = missingRuntimeMessage(runtime, await engineRuntimes(ctx.docker));
  if (message !== null) throw new UserError(`--runtime ${runtime}: ${message}`);
}

export interface DockerContext {
  docker: Dockerode;
  endpoint: string;
  files: ContextFile[];
  tag: string;
  home: string;
  /** The owner of the containers this command starts. */
  owner: ContainerOwner;
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
    owner: currentOwner(await installId(home)),
    docker: status.docker,
    endpoint: status.endpoint,
    files,
    tag: imageTagFor(files),
    home,
  };
}

/** The data directory's install id; its folder must be the user's own (issue 8 §5). */
async function installId(home: string): Promise<string> {
  await mkdir(home, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });
  try {
    await checkDataDirTrust(home, [INSTALL_ID_FILE]);
  } catch (error) {
    if (error instanceof DataDirTrustError) throw new UserError(error.message);
    throw error;
  }
  return ensureInstallId(home);
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
