import Dockerode from "dockerode";
import { inject } from "vitest";
import { findDocker } from "../electron/host/docker/docker-status.js";

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

export const TEST_HOME_ID = "codemode-tests";

/** Sandbox containers this test process left behind: must be none after each test. */
export async function leftoverContainers(docker: Dockerode): Promise<string[]> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: ["codemode.sandbox=1", `codemode.owner-pid=${process.pid}`] },
  });
  return list.map((c) => c.Id);
}
