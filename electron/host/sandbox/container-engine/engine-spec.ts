// The hardened container spec as the engine on this connection needs it said.
import type Dockerode from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { engineFlavour } from "./engine-flavour.js";
import { adaptSpec } from "./podman-quirks.js";

/**
 * `spec` adapted to the engine behind `docker` (asked once per client). An engine that cannot
 * say what it is gets the spec unchanged: the create that follows fails the same way, with the
 * engine's own error.
 */
export async function engineSpec(
  docker: Dockerode,
  spec: ContainerCreateOptions,
): Promise<ContainerCreateOptions> {
  const flavour = await engineFlavour(docker).catch(() => null);
  return flavour === null ? spec : adaptSpec(spec, flavour);
}
