import type Dockerode from "dockerode";

/**
 * A container removal the engine itself failed (HTTP 500) is tried again after each of these
 * waits: Docker fails a forced removal that races the container's own exit ("cannot remove -
 * Container … is not running") and keeps the container, which a try a moment later removes.
 */
export const REMOVE_RETRY_DELAYS_MS = [100, 500, 2_000] as const;

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
 * tried again after each of REMOVE_RETRY_DELAYS_MS: a forced removal that races the
 * container's own exit (the runner ending as its run does) fails with "Could not kill running
 * container …, cannot remove - Container … is not running", and the engine keeps the container
 * (one is then left after `codemode serve` closes); a removal a moment later works.
 * Anything else (the engine not reachable) is not retried here: the startup sweep takes it.
 */
export async function removeContainer(
  container: Pick<Dockerode.Container, "remove">,
  wait: (ms: number) => Promise<void> = delay,
): Promise<void> {
  for (const retryAfter of [...REMOVE_RETRY_DELAYS_MS, null]) {
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
