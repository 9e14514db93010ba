// Looks for container engines in every place engine-candidates.ts names, asks each one that is
// there whether it answers (in parallel, each within a bound), and picks the one to use: the
// user's choice when they made one, else what the Docker CLI would use, else the first that
// answers.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type Dockerode from "dockerode";
import { addressLabel, parseEngineUrl, type TlsChoice } from "./engine-address.js";
import { engineCandidates, type CandidateEnv, type EngineCandidate } from "./engine-candidates.js";
import { connectEngine, type ConnectEnv, type EngineConnection } from "./engine-connect.js";
import { engineProblem } from "./engine-errors.js";
import { flavourFrom, noteEngineFlavour, type EngineFlavour } from "./engine-flavour.js";
import { podmanMachineSockets } from "./podman-machine.js";

/** An engine that does not answer its version request within this is taken as not running. */
export const DOCKER_VERSION_TIMEOUT_MS = 5_000;

/** What one place held when it was looked at. */
export interface EngineProbe {
  candidate: EngineCandidate;
  /** The socket exists (always true for a remote address: only asking tells). */
  found: boolean;
  answered: boolean;
  flavour: EngineFlavour | null;
  /** Why it did not answer, in words (a refused certificate, no such socket...). */
  problem: string | null;
}

export interface Detection {
  probes: EngineProbe[];
  /** Problems with the Docker CLI's own settings (a DOCKER_HOST that does not parse...). */
  problems: string[];
}

/** The machine as the candidates need it: this process's environment and files. */
export async function processCandidateEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = os.homedir(),
): Promise<CandidateEnv> {
  const colimaDir = path.join(home, ".colima");
  let colimaProfiles: string[] = [];
  try {
    colimaProfiles = readdirSync(colimaDir, { withFileTypes: true })
      .filter(
        (entry) =>
          entry.isDirectory() && existsSync(path.join(colimaDir, entry.name, "docker.sock")),
      )
      .map((entry) => entry.name)
      .sort((a, b) => (a === "default" ? -1 : b === "default" ? 1 : a.localeCompare(b)));
  } catch {
    colimaProfiles = ["default"];
  }
  if (!colimaProfiles.includes("default")) colimaProfiles.unshift("default");
  return {
    env,
    home,
    platform: process.platform,
    uid: typeof process.getuid === "function" ? process.getuid() : undefined,
    colimaProfiles,
    podmanMachines: process.platform === "linux" ? [] : await podmanMachineSockets(),
    readText: (file) => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return null;
      }
    },
    exists: existsSync,
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Asks one engine its version (and what it is), within DOCKER_VERSION_TIMEOUT_MS. */
export async function askEngine(docker: Dockerode, label: string): Promise<EngineFlavour> {
  const [version, info] = await withTimeout<[Dockerode.DockerVersion, unknown]>(
    Promise.all([docker.version(), docker.info() as Promise<unknown>]),
    DOCKER_VERSION_TIMEOUT_MS,
    `the engine at ${label}`,
  );
  const flavour = flavourFrom(version, info as { SecurityOptions?: string[] });
  noteEngineFlavour(docker, flavour);
  return flavour;
}

/** Looks at one candidate: whether it is there, and whether it answers. */
export async function probeCandidate(
  candidate: EngineCandidate,
  connectEnv: ConnectEnv,
  keep = false,
): Promise<{ probe: EngineProbe; connection: EngineConnection | null }> {
  const { address } = candidate;
  const label = addressLabel(address);
  const base = { candidate, flavour: null };
  if (address.kind === "unix" && !existsSync(address.path)) {
    return {
      probe: { ...base, found: false, answered: false, problem: "no socket there" },
      connection: null,
    };
  }
  let connection: EngineConnection;
  try {
    connection = connectEngine(address, connectEnv);
  } catch (error) {
    return {
      probe: { ...base, found: true, answered: false, problem: engineProblem(error, label) },
      connection: null,
    };
  }
  try {
    const flavour = await askEngine(connection.docker, label);
    if (!keep) connection.close();
    return {
      probe: { ...base, found: true, answered: true, flavour, problem: null },
      connection: keep ? connection : null,
    };
  } catch (error) {
    connection.close();
    // A pipe that is not there says so only when asked.
    const found =
      address.kind !== "npipe" || !String((error as NodeJS.ErrnoException).code).includes("ENOENT");
    return {
      probe: { ...base, found, answered: false, problem: engineProblem(error, label) },
      connection: null,
    };
  }
}

/** Every candidate, looked at in parallel. */
export async function detectEngines(env: CandidateEnv, connectEnv: ConnectEnv): Promise<Detection> {
  const { candidates, problems } = engineCandidates(env);
  const probes = await Promise.all(
    candidates.map(async (c) => (await probeCandidate(c, connectEnv)).probe),
  );
  return { probes, problems };
}

/**
 * The candidate a preference names: a name from the list (`colima`, `podman`), or a URL (used
 * as given, as a candidate of its own). A problem when it names nothing known. A tcp:// URL is
 * reached over TLS when `tls` says so (the Docker CLI's --tlsverify with DOCKER_CERT_PATH).
 */
export function preferredCandidate(
  preference: string,
  candidates: readonly EngineCandidate[],
  tls: TlsChoice | null,
): { candidate: EngineCandidate } | { problem: string } {
  const byName = candidates.find((c) => c.name === preference);
  if (byName) return { candidate: byName };
  if (!preference.includes("://") && !preference.startsWith("/")) {
    return {
      problem: `no engine is named ${JSON.stringify(preference)}; the names are ${candidates.map((c) => c.name).join(", ")}, or give a URL (unix://, tcp://, ssh://)`,
    };
  }
  const parsed = parseEngineUrl(preference, tls);
  if (!parsed.ok) return { problem: parsed.problem };
  return {
    candidate: {
      name: parsed.address.url,
      product: "Engine URL",
      address: parsed.address,
      source: "setting",
    },
  };
}
