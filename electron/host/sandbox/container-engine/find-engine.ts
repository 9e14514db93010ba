// The engine Code Mode uses, found the way a user of their engine expects: the one they chose
// (the Sandbox page's setting, `codemode engine use`, `--engine`), else the one the Docker CLI
// would use (DOCKER_HOST, the current context), else the first that answers among the places
// each product keeps its socket. A choice that does not answer is not swapped for another: the
// user is told, with what else answers.
import os from "node:os";
import path from "node:path";
import type Dockerode from "dockerode";
import type { TlsChoice } from "./engine-address.js";
import type { SandboxEngine } from "./sandbox-engine.js";
import { addressLabel, isRemote } from "./engine-address.js";
import {
  engineCandidates,
  installAdvice,
  type CandidateEnv,
  type EngineCandidate,
} from "./engine-candidates.js";
import { DockerApiEngine } from "./docker-api-engine.js";
import type { ConnectEnv, EngineConnection } from "./engine-connect.js";
import {
  preferredCandidate,
  probeCandidate,
  processCandidateEnv,
  type EngineProbe,
} from "./engine-detect.js";

/** One place looked at, as the Sandbox page and `codemode engine list` show it. */
export interface EngineSummary {
  name: string;
  product: string;
  url: string;
  found: boolean;
  answered: boolean;
  kind: "docker" | "podman" | null;
  version: string | null;
  problem: string | null;
}

export interface FoundEngine {
  state: "ready";
  /** The engine through its boundary: everything the sandbox asks of it goes here. */
  engine: SandboxEngine;
  /** The Docker-API client below the boundary (engine detection, tests). */
  docker: Dockerode;
  /** Where it is, as shown: `unix:///var/run/docker.sock`, `tcp://host:2376 (TLS)`. */
  endpoint: string;
  version: string;
  // The fields below are what detection adds; a status made by hand (tests) may leave them out.
  /** Its name in the list (`docker`, `podman`, `context-prod`) or the URL given. */
  name?: string;
  kind?: "docker" | "podman";
  remote?: boolean;
  engines?: EngineSummary[];
  close?(): void;
}

export interface MissingEngine {
  state: "not-running" | "not-installed";
  tried: string[];
  message: string;
  engines?: EngineSummary[];
  advice?: string[];
}

export interface FindEngineOptions {
  /** The user's choice: an engine's name or a URL; "" or null lets Code Mode look. */
  preference?: string | null;
  env?: Readonly<Record<string, string | undefined>>;
  home?: string;
  /** For tests: the machine to look at instead of this one. */
  candidateEnv?: CandidateEnv;
}

export function summary(probe: EngineProbe): EngineSummary {
  return {
    name: probe.candidate.name,
    product: probe.candidate.product,
    url: addressLabel(probe.candidate.address),
    found: probe.found,
    answered: probe.answered,
    kind: probe.flavour?.product ?? null,
    version: probe.flavour?.version ?? null,
    problem: probe.problem,
  };
}

function urlTls(env: Readonly<Record<string, string | undefined>>, home: string): TlsChoice {
  return { verify: true, certDir: env.DOCKER_CERT_PATH || path.join(home, ".docker") };
}

/** Looks at every candidate, keeping the connection of the first that answers (in order). */
async function firstAnswering(
  candidates: readonly EngineCandidate[],
  connectEnv: ConnectEnv,
): Promise<{
  probes: EngineProbe[];
  chosen: { index: number; connection: EngineConnection } | null;
}> {
  const looks = await Promise.all(candidates.map((c) => probeCandidate(c, connectEnv, true)));
  const index = looks.findIndex((look) => look.connection !== null);
  looks.forEach((look, i) => {
    if (i !== index) look.connection?.close();
  });
  const chosen = index === -1 ? null : { index, connection: looks[index]!.connection! };
  return { probes: looks.map((look) => look.probe), chosen };
}

function ready(
  probe: EngineProbe,
  connection: EngineConnection,
  engines: EngineSummary[],
): FoundEngine {
  const flavour = probe.flavour!;
  const found = {
    docker: connection.docker,
    endpoint: addressLabel(probe.candidate.address),
    name: probe.candidate.name,
    kind: flavour.product,
    remote: isRemote(probe.candidate.address),
    close: () => connection.close(),
  };
  return {
    state: "ready",
    engine: new DockerApiEngine(found),
    version: flavour.version,
    engines,
    ...found,
  };
}

/** The engine to use, or why there is none and what to do. */
export async function findEngine(
  options: FindEngineOptions = {},
): Promise<FoundEngine | MissingEngine> {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const candidateEnv = options.candidateEnv ?? (await processCandidateEnv(env, home));
  const connectEnv: ConnectEnv = { env, home };
  const { candidates, problems } = engineCandidates(candidateEnv);
  const advice = installAdvice(candidateEnv.platform);
  const preference = options.preference?.trim() ?? "";

  // The user's own choice, or the Docker CLI's: that engine only.
  let only: EngineCandidate | null = null;
  let onlyProblem: string | null = null;
  if (preference !== "") {
    const found = preferredCandidate(preference, candidates, urlTls(env, home));
    if ("problem" in found) onlyProblem = `the chosen engine: ${found.problem}`;
    else only = found.candidate;
  } else if (problems.length > 0) {
    onlyProblem = problems.join("; ");
  } else if (candidates[0] && candidates[0].source !== "socket") {
    only = candidates[0];
  }

  if (onlyProblem !== null) {
    return {
      state: "not-running",
      tried: [],
      message: `Code Mode cannot use ${onlyProblem}.`,
      engines: [],
      advice,
    };
  }
  if (only !== null) {
    const look = await probeCandidate(only, connectEnv, true);
    const engines = [summary(look.probe)];
    if (look.connection) return ready(look.probe, look.connection, engines);
    const how =
      only.source === "DOCKER_HOST"
        ? "DOCKER_HOST names it"
        : only.source === "context"
          ? "it is the current Docker context"
          : "it was chosen on the Sandbox page (or with codemode engine use)";
    return {
      state: "not-running",
      tried: [engines[0]!.url],
      message: `The container engine ${only.name} (${engines[0]!.url}) cannot be used: ${look.probe.problem ?? "it did not answer"}. Code Mode uses it because ${how}. Start Docker (or the engine that belongs there), or choose another with \`codemode engine use NAME\`.`,
      engines,
      advice,
    };
  }

  const { probes, chosen } = await firstAnswering(candidates, connectEnv);
  const engines = probes.map(summary);
  if (chosen) return ready(probes[chosen.index]!, chosen.connection, engines);
  const anyThere = probes.some((p) => p.found);
  const looked = probes
    .map((p) => `${p.candidate.product} (${addressLabel(p.candidate.address)})`)
    .join(", ");
  return {
    state: anyThere ? "not-running" : "not-installed",
    tried: probes.map((p) => addressLabel(p.candidate.address)),
    message: anyThere
      ? `No container engine answers. Looked for ${looked}. Start yours (Docker Desktop, Podman, Colima, Rancher Desktop, OrbStack), or set DOCKER_HOST.`
      : `No container engine was found. Looked for ${looked}. Install one: ${advice.join("; ")}.`,
    engines,
    advice,
  };
}
