// What a bench that starts sandbox containers itself needs: the engine, the app's sandbox image
// tag (built by `npm run build` or an earlier run) and an owner label of its own.
import type Dockerode from "dockerode";
import type { SandboxEngine } from "../electron/host/sandbox/container-engine/sandbox-engine.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import {
  currentOwner,
  type ContainerOwner,
} from "../electron/host/sandbox/containers/container-owner.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";

export async function benchEngine(): Promise<{
  docker: Dockerode;
  engine: SandboxEngine;
  image: string;
  owner: ContainerOwner;
}> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  return {
    docker: status.docker,
    engine: status.engine,
    image: imageTagFor(readContext(sandboxImageDir())),
    owner: currentOwner("codemode-bench"),
  };
}
