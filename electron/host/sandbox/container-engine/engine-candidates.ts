// The places each container engine product keeps its Docker-compatible socket, per platform.
// Pure: the caller gives the environment, the file checks, the Colima profiles and the
// `podman machine inspect` answer, so a test can lay out any machine.
import path from "node:path";
import { dockerCliChoice, type DockerCliEnv } from "./docker-cli-config.js";
import type { EngineAddress } from "./engine-address.js";

export type EngineProductName =
  | "Docker"
  | "Docker Desktop"
  | "Podman"
  | "Podman machine"
  | "Colima"
  | "Rancher Desktop"
  | "OrbStack"
  | "DOCKER_HOST"
  | "Docker context"
  | "Engine URL";

export interface EngineCandidate {
  /** Short, unique, what `codemode engine use NAME` takes: "docker-desktop", "colima-work". */
  name: string;
  product: EngineProductName;
  address: EngineAddress;
  /** Where the choice came from when the Docker CLI's own settings named it. */
  source: "DOCKER_HOST" | "context" | "socket" | "setting";
}

export interface CandidateEnv extends DockerCliEnv {
  platform: NodeJS.Platform;
  uid: number | undefined;
  /** Colima's profiles (folders under ~/.colima holding a docker.sock); "default" first. */
  colimaProfiles: readonly string[];
  /** `podman machine inspect`'s sockets, when the podman CLI answered: name and path. */
  podmanMachines: readonly { name: string; socket: string }[];
}

function unix(name: string, product: EngineProductName, socket: string): EngineCandidate {
  return {
    name,
    product,
    address: { kind: "unix", path: socket, url: `unix://${socket}` },
    source: "socket",
  };
}

function npipe(name: string, product: EngineProductName, pipe: string): EngineCandidate {
  return {
    name,
    product,
    address: { kind: "npipe", path: pipe, url: `npipe://${pipe.replaceAll("\\", "/")}` },
    source: "socket",
  };
}

/** The sockets of each product on this platform, in the order they are preferred. */
export function productSockets(env: CandidateEnv): EngineCandidate[] {
  const h = (...parts: string[]): string => path.posix.join(env.home, ...parts);
  const colima = env.colimaProfiles.map((profile) =>
    unix(
      profile === "default" ? "colima" : `colima-${profile}`,
      "Colima",
      h(".colima", profile, "docker.sock"),
    ),
  );
  const machines = env.podmanMachines.map((m) =>
    env.platform === "win32"
      ? npipe(`podman-${m.name}`, "Podman machine", m.socket)
      : unix(`podman-${m.name}`, "Podman machine", m.socket),
  );
  if (env.platform === "win32") {
    const guessed =
      machines.length > 0
        ? []
        : [npipe("podman-machine-default", "Podman machine", "//./pipe/podman-machine-default")];
    return [
      npipe("docker-desktop", "Docker Desktop", "//./pipe/docker_engine"),
      ...machines,
      ...guessed,
    ];
  }
  const runtimeDir =
    env.env.XDG_RUNTIME_DIR || (env.uid !== undefined ? `/run/user/${env.uid}` : null);
  if (env.platform === "darwin") {
    const guessed =
      machines.length > 0
        ? []
        : [
            unix(
              "podman-machine-default",
              "Podman machine",
              h(".local", "share", "containers", "podman", "machine", "podman.sock"),
            ),
          ];
    return [
      unix("docker-desktop", "Docker Desktop", h(".docker", "run", "docker.sock")),
      unix("docker", "Docker", "/var/run/docker.sock"),
      ...colima,
      unix("orbstack", "OrbStack", h(".orbstack", "run", "docker.sock")),
      unix("rancher-desktop", "Rancher Desktop", h(".rd", "docker.sock")),
      ...machines,
      ...guessed,
    ];
  }
  return [
    unix("docker", "Docker", "/var/run/docker.sock"),
    unix("docker-desktop", "Docker Desktop", h(".docker", "desktop", "docker.sock")),
    ...(runtimeDir
      ? [unix("docker-rootless", "Docker", path.posix.join(runtimeDir, "docker.sock"))]
      : []),
    ...(runtimeDir
      ? [unix("podman", "Podman", path.posix.join(runtimeDir, "podman", "podman.sock"))]
      : []),
    unix("podman-rootful", "Podman", "/run/podman/podman.sock"),
    ...colima,
    unix("rancher-desktop", "Rancher Desktop", h(".rd", "docker.sock")),
  ];
}

/**
 * Every place to look, named: what the Docker CLI would use first (DOCKER_HOST, else its current
 * context), then each product's sockets. A second path to the same socket is dropped.
 */
export function engineCandidates(env: CandidateEnv): {
  candidates: EngineCandidate[];
  problems: string[];
} {
  const problems: string[] = [];
  const first: EngineCandidate[] = [];
  const choice = dockerCliChoice(env);
  if ("problem" in choice) problems.push(choice.problem);
  else if (choice.from === "DOCKER_HOST") {
    first.push({
      name: "docker-host",
      product: "DOCKER_HOST",
      address: choice.address,
      source: "DOCKER_HOST",
    });
  } else if (choice.from === "context") {
    first.push({
      name: `context-${choice.context}`,
      product: "Docker context",
      address: choice.address,
      source: "context",
    });
  }
  const seen = new Set<string>();
  const candidates: EngineCandidate[] = [];
  for (const candidate of [...first, ...productSockets(env)]) {
    const key = candidate.address.url;
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push(candidate);
  }
  return { candidates, problems };
}

/** How to install or start an engine, per platform: shown when none answers. */
export function installAdvice(platform: NodeJS.Platform): string[] {
  if (platform === "darwin") {
    return [
      "Docker Desktop: install it from docker.com and open it",
      "Colima: brew install colima docker, then colima start",
      "Podman: brew install podman, then podman machine init and podman machine start",
      "OrbStack or Rancher Desktop: install it and open it",
    ];
  }
  if (platform === "win32") {
    return [
      "Docker Desktop: install it from docker.com and open it",
      "Podman Desktop: install it, then create and start a Podman machine",
      "Rancher Desktop: install it and choose the dockerd (moby) engine",
    ];
  }
  return [
    "Docker: install docker.io (Debian, Ubuntu) or docker-ce, then sudo systemctl start docker and add yourself to the docker group",
    "Podman: install podman, then systemctl --user start podman.socket (or sudo systemctl start podman.socket)",
    "Docker Desktop for Linux: install it and open it",
  ];
}
