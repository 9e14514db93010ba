import type Dockerode from "dockerode";
import { DOCKER_LIMITS } from "../../../../shared/limits.js";

function statusOf(error: unknown): number | undefined {
  return typeof error === "object" && error !== null && "statusCode" in error
    ? (error.statusCode as number)
    : undefined;
}

/** 404: already gone; 409: Docker is removing it already. */
function goneOrGoing(error: unknown): boolean {
  const status = statusOf(error);
  return status === 404 || status === 409;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills and removes a container (a forced removal). A removal the engine itself failed (500) is
 * tried again after each of DOCKER_LIMITS.removeRetryDelaysMs: a forced removal that races the
 * container's own exit (the runner ending as its run does) fails with "Could not kill running
 * container …, cannot remove - Container … is not running", and the engine keeps the container
 * (one is then left after `codemode serve` closes); a removal a moment later works.
 * Anything else (the engine not reachable) is not retried here: the startup sweep takes it.
 */
export async function removeContainer(
  container: Pick<Dockerode.Container, "remove">,
  wait: (ms: number) => Promise<void> = delay,
): Promise<void> {
  for (const retryAfter of [...DOCKER_LIMITS.removeRetryDelaysMs, null]) {
    try {
      await container.remove({ force: true });
      return;
    } catch (error) {
      if (goneOrGoing(error)) return;
      if (statusOf(error) !== 500 || retryAfter === null) throw error;
      await wait(retryAfter);
    }
  }
}
