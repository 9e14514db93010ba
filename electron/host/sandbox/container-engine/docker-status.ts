import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Dockerode from "dockerode";
import { dockerEndpoints, type DockerEndpoint, type EndpointContext } from "./docker-endpoints.js";

/** An engine that does not answer its version request within this is taken as not running. */
export const DOCKER_VERSION_TIMEOUT_MS = 5_000;

export type DockerStatus =
  | { state: "ready"; docker: Dockerode; endpoint: string; version: string }
  | { state: "not-running" | "not-installed"; tried: string[]; message: string };

export function endpointContextFromProcess(): EndpointContext {
  return {
    dockerHost: process.env.DOCKER_HOST || undefined,
    platform: process.platform,
    home: os.homedir(),
    xdgRuntimeDir: process.env.XDG_RUNTIME_DIR || undefined,
    uid: typeof process.getuid === "function" ? process.getuid() : undefined,
  };
}

function client(endpoint: DockerEndpoint): Dockerode {
  // Explicit options only: the client never reads the host's DOCKER_* variables itself.
  if (endpoint.socketPath) return new Dockerode({ socketPath: endpoint.socketPath });
  return new Dockerode({
    host: endpoint.host,
    port: endpoint.port,
    protocol: endpoint.protocol,
  });
}

function cliOnPath(platform: NodeJS.Platform): boolean {
  const exe = platform === "win32" ? ["docker.exe", "podman.exe"] : ["docker", "podman"];
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  return dirs.some((dir) => exe.some((name) => existsSync(path.join(dir, name))));
}

/**
 * Finds a Docker engine that answers. Says which sockets were tried and what to do,
 * because "cannot connect" alone leaves a non-developer stuck.
 */
export async function findDocker(
  ctx: EndpointContext = endpointContextFromProcess(),
): Promise<DockerStatus> {
  const endpoints = dockerEndpoints(ctx);
  const tried: string[] = [];
  let anySocketExists = false;
  for (const endpoint of endpoints) {
    tried.push(endpoint.label);
    if (endpoint.socketPath && ctx.platform !== "win32" && !existsSync(endpoint.socketPath)) {
      continue;
    }
    anySocketExists = true;
    const docker = client(endpoint);
    try {
      // A socket that exists but does not answer (an engine still starting) must not hang us.
      const version = (await Promise.race([
        docker.version(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no answer")), DOCKER_VERSION_TIMEOUT_MS).unref(),
        ),
      ])) as { Version?: string };
      return { state: "ready", docker, endpoint: endpoint.label, version: version.Version ?? "?" };
    } catch {
      // Try the next candidate.
    }
  }
  const triedText = tried.join(", ");
  if (anySocketExists || ctx.dockerHost || cliOnPath(ctx.platform)) {
    return {
      state: "not-running",
      tried,
      message: `Docker is not running (tried ${triedText}). Start Docker Desktop (or Colima, Rancher Desktop, Podman), or set DOCKER_HOST to your engine's socket.`,
    };
  }
  return {
    state: "not-installed",
    tried,
    message: `Docker was not found (tried ${triedText}). Install Docker Desktop (or Colima, Rancher Desktop, Podman) and start it, or set DOCKER_HOST to your engine's socket.`,
  };
}
