import { describe, expect, it } from "vitest";
import { dockerEndpoints, parseDockerHost } from "./docker-endpoints.js";

const base = { dockerHost: undefined, home: "/home/u", xdgRuntimeDir: undefined, uid: 1000 };

describe("docker endpoints", () => {
  it("uses DOCKER_HOST alone when it is set", () => {
    expect(
      dockerEndpoints({ ...base, platform: "linux", dockerHost: "unix:///tmp/d.sock" }),
    ).toEqual([{ socketPath: "/tmp/d.sock", label: "unix:///tmp/d.sock" }]);
  });

  it("parses tcp and npipe hosts", () => {
    expect(parseDockerHost("tcp://127.0.0.1:2376")).toMatchObject({
      host: "127.0.0.1",
      port: 2376,
    });
    expect(parseDockerHost("npipe:////./pipe/docker_engine").socketPath).toBe(
      "//./pipe/docker_engine",
    );
  });

  it("tries Docker Desktop, Colima, Rancher Desktop and Podman sockets by platform", () => {
    const mac = dockerEndpoints({ ...base, platform: "darwin" }).map((e) => e.socketPath);
    expect(mac).toContain("/var/run/docker.sock");
    expect(mac).toContain("/home/u/.docker/run/docker.sock");
    expect(mac).toContain("/home/u/.colima/default/docker.sock");
    expect(mac).toContain("/home/u/.rd/docker.sock");
    const linux = dockerEndpoints({ ...base, platform: "linux" }).map((e) => e.socketPath);
    expect(linux).toContain("/run/user/1000/podman/podman.sock");
    const windows = dockerEndpoints({ ...base, platform: "win32" }).map((e) => e.socketPath);
    expect(windows).toEqual(["//./pipe/docker_engine", "//./pipe/podman-machine-default"]);
  });
});
