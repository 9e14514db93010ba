import path from "node:path";

/** Where to reach a Docker-compatible engine, and how to name it to a person. */
export interface DockerEndpoint {
  socketPath?: string;
  host?: string;
  port?: number;
  protocol?: "http" | "https";
  /** As shown to the user: `unix:///var/run/docker.sock`, `tcp://127.0.0.1:2375`. */
  label: string;
}

export interface EndpointContext {
  dockerHost: string | undefined;
  platform: NodeJS.Platform;
  home: string;
  xdgRuntimeDir: string | undefined;
  uid: number | undefined;
}

/**
 * DOCKER_HOST when set (and then nothing else: the user chose), else the usual sockets
 * of Docker Desktop, Colima, Rancher Desktop, OrbStack and Podman for the platform.
 */
export function dockerEndpoints(ctx: EndpointContext): DockerEndpoint[] {
  if (ctx.dockerHost) return [parseDockerHost(ctx.dockerHost)];
  if (ctx.platform === "win32") {
    return ["//./pipe/docker_engine", "//./pipe/podman-machine-default"].map((p) => ({
      socketPath: p,
      label: `npipe:${p}`,
    }));
  }
  const h = (...parts: string[]): string => path.join(ctx.home, ...parts);
  const candidates =
    ctx.platform === "darwin"
      ? [
          "/var/run/docker.sock",
          h(".docker", "run", "docker.sock"),
          h(".colima", "default", "docker.sock"),
          h(".rd", "docker.sock"),
          h(".orbstack", "run", "docker.sock"),
          h(".local", "share", "containers", "podman", "machine", "podman.sock"),
        ]
      : [
          "/var/run/docker.sock",
          h(".docker", "desktop", "docker.sock"),
          h(".colima", "default", "docker.sock"),
          h(".rd", "docker.sock"),
          ...(ctx.xdgRuntimeDir
            ? [
                path.join(ctx.xdgRuntimeDir, "docker.sock"),
                path.join(ctx.xdgRuntimeDir, "podman", "podman.sock"),
              ]
            : []),
          ...(ctx.uid !== undefined ? [`/run/user/${ctx.uid}/podman/podman.sock`] : []),
          "/run/podman/podman.sock",
        ];
  return [...new Set(candidates)].map((p) => ({ socketPath: p, label: `unix://${p}` }));
}

export function parseDockerHost(value: string): DockerEndpoint {
  if (value.startsWith("unix://")) {
    return { socketPath: value.slice("unix://".length), label: value };
  }
  if (value.startsWith("npipe://")) {
    // npipe:////./pipe/docker_engine -> //./pipe/docker_engine
    return { socketPath: value.slice("npipe:".length).replace(/^\/\/\/\//, "//"), label: value };
  }
  const match = /^(tcp|http|https):\/\/([^:/]+)(?::(\d+))?/.exec(value);
  if (match) {
    const scheme = match[1];
    return {
      host: match[2] ?? "127.0.0.1",
      port: match[3] ? Number(match[3]) : 2375,
      protocol: scheme === "https" ? "https" : "http",
      label: value,
    };
  }
  // A bare path is what some tools write; treat it as a socket.
  return { socketPath: value, label: `unix://${value}` };
}
