// Which Docker-API engine answers on a connection (Docker, or Podman's compatible service), asked
// once per client: the few places where the same hardened spec has to be said differently on
// Podman read it here (podman-quirks.ts).
import type Dockerode from "dockerode";

export type EngineProduct = "docker" | "podman";

export interface EngineFlavour {
  product: EngineProduct;
  /** Podman run by a user (no root): its limits are the user's own. */
  rootless: boolean;
  /** The engine's version, as it says it ("28.2.2", "4.3.1"). */
  version: string;
}

interface VersionAnswer {
  Version?: string;
  Components?: { Name?: string; Version?: string }[] | null;
}

interface InfoAnswer {
  SecurityOptions?: string[] | null;
}

/** What an engine's /version and /info answers say it is (pure). */
export function flavourFrom(version: VersionAnswer, info: InfoAnswer): EngineFlavour {
  const podman = (version.Components ?? []).find((c) => c.Name === "Podman Engine");
  const rootless = (info.SecurityOptions ?? []).some((option) => option === "name=rootless");
  return {
    product: podman ? "podman" : "docker",
    rootless,
    version: podman?.Version ?? version.Version ?? "?",
  };
}

const known = new WeakMap<Dockerode, Promise<EngineFlavour>>();

/** The flavour of the engine behind `docker`, asked at the first call and kept for the client. */
export function engineFlavour(docker: Dockerode): Promise<EngineFlavour> {
  let pending = known.get(docker);
  if (!pending) {
    pending = Promise.resolve()
      .then(() => Promise.all([docker.version(), docker.info()]))
      .then(
        ([version, info]) => flavourFrom(version as VersionAnswer, info as InfoAnswer),
        (error: unknown) => {
          // Not kept: the next container start asks again (the engine may be back by then).
          known.delete(docker);
          throw error;
        },
      );
    known.set(docker, pending);
  }
  return pending;
}

/** Records what a caller already learnt (the detection asked /version already). */
export function noteEngineFlavour(docker: Dockerode, flavour: EngineFlavour): void {
  known.set(docker, Promise.resolve(flavour));
}
