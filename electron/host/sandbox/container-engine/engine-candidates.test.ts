import { describe, expect, it } from "vitest";
import { engineCandidates, installAdvice, type CandidateEnv } from "./engine-candidates.js";

function machine(platform: NodeJS.Platform, more: Partial<CandidateEnv> = {}): CandidateEnv {
  return {
    env: {},
    home: "/home/u",
    platform,
    uid: 1000,
    colimaProfiles: ["default"],
    podmanMachines: [],
    readText: () => null,
    exists: () => false,
    ...more,
  };
}

const places = (env: CandidateEnv) =>
  engineCandidates(env).candidates.map((c) => [
    c.name,
    c.address.kind === "tcp" || c.address.kind === "ssh" ? c.address.url : c.address.path,
  ]);

describe("where each product keeps its engine", () => {
  it("Linux: Docker, Docker Desktop, rootless Docker and Podman, rootful Podman, Colima, Rancher", () => {
    expect(places(machine("linux", { env: { XDG_RUNTIME_DIR: "/run/user/1000" } }))).toEqual([
      ["docker", "/var/run/docker.sock"],
      ["docker-desktop", "/home/u/.docker/desktop/docker.sock"],
      ["docker-rootless", "/run/user/1000/docker.sock"],
      ["podman", "/run/user/1000/podman/podman.sock"],
      ["podman-rootful", "/run/podman/podman.sock"],
      ["colima", "/home/u/.colima/default/docker.sock"],
      ["rancher-desktop", "/home/u/.rd/docker.sock"],
    ]);
  });

  it("macOS: Docker Desktop's per-user socket first, Colima profiles, OrbStack, podman machine's own socket", () => {
    const mac = places(
      machine("darwin", {
        colimaProfiles: ["default", "work"],
        podmanMachines: [
          {
            name: "podman-machine-default",
            socket: "/var/folders/x/podman/podman-machine-default-api.sock",
          },
        ],
      }),
    );
    expect(mac[0]).toEqual(["docker-desktop", "/home/u/.docker/run/docker.sock"]);
    expect(mac).toContainEqual(["colima-work", "/home/u/.colima/work/docker.sock"]);
    expect(mac).toContainEqual(["orbstack", "/home/u/.orbstack/run/docker.sock"]);
    expect(mac).toContainEqual(["rancher-desktop", "/home/u/.rd/docker.sock"]);
    expect(mac).toContainEqual([
      "podman-podman-machine-default",
      "/var/folders/x/podman/podman-machine-default-api.sock",
    ]);
  });

  it("Windows: Docker Desktop's pipe and Podman machine's pipe", () => {
    expect(places(machine("win32"))).toEqual([
      ["docker-desktop", "//./pipe/docker_engine"],
      ["podman-machine-default", "//./pipe/podman-machine-default"],
    ]);
  });

  it("what the Docker CLI would use comes first; a second path to one socket is dropped", () => {
    const env = machine("linux", { env: { DOCKER_HOST: "unix:///var/run/docker.sock" } });
    const list = engineCandidates(env).candidates;
    expect(list[0]).toMatchObject({ name: "docker-host", source: "DOCKER_HOST" });
    expect(
      list.filter((c) => c.address.kind === "unix" && c.address.path === "/var/run/docker.sock"),
    ).toHaveLength(1);
  });

  it("advice per platform names how to install or start an engine", () => {
    expect(installAdvice("darwin").join(" ")).toContain("colima start");
    expect(installAdvice("win32").join(" ")).toContain("Podman Desktop");
    expect(installAdvice("linux").join(" ")).toContain("podman.socket");
  });
});
