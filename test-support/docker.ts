import Dockerode from "dockerode";
import { inject } from "vitest";
import { findDocker } from "../electron/host/docker/docker-status.js";
import { currentOwner, type ContainerOwner } from "../electron/host/sandbox/container-owner.js";
import { OWNER_LABELS } from "../electron/host/sandbox/container-spec.js";
import { readInstallId } from "../electron/host/sandbox/install-id.js";

export interface DockerFixture {
  docker: Dockerode;
  image: string;
}

/**
 * Docker tests never skip silently in CI: under CI=true a missing engine fails the
 * test file. Elsewhere they skip, and say why.
 */
export async function dockerOrSkip(): Promise<DockerFixture | null> {
  const provided = inject("sandboxImage");
  if (!provided.ok) {
    if (process.env.CI === "true") {
      throw new Error(`Docker is required in CI: ${provided.reason}`);
    }
    process.stderr.write(`skipping Docker tests: ${provided.reason}\n`);
    return null;
  }
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  return { docker: status.docker, image: provided.tag };
}

/** The install id of containers the tests start directly (not through a daemon or serve). */
export const TEST_HOME_ID = "codemode-tests";

/** An owner for containers the tests start directly: this test process, install TEST_HOME_ID. */
export function testOwner(): ContainerOwner {
  return currentOwner(TEST_HOME_ID);
}

/** Sandbox containers of one data directory's install (any state), whoever started them. */
export async function installContainers(
  docker: Dockerode,
  home: string,
): Promise<Dockerode.ContainerInfo[]> {
  const install = await readInstallId(home).catch(() => null);
  if (install === null) return [];
  return docker.listContainers({
    all: true,
    filters: { label: ["codemode.sandbox=1", `${OWNER_LABELS.install}=${install}`] },
  });
}

/** Sandbox containers this test process left behind: must be none after each test. */
export async function leftoverContainers(docker: Dockerode): Promise<string[]> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: ["codemode.sandbox=1", `codemode.owner-pid=${process.pid}`] },
  });
  return list.map((c) => c.Id);
}
