import type Dockerode from "dockerode";
import { describe, expect, it } from "vitest";
import { engineRuntimes, missingRuntimeMessage, requireRuntime } from "./docker-runtimes.js";

const engine = (runtimes: Record<string, unknown> | null) =>
  ({ info: () => Promise.resolve({ Runtimes: runtimes }) }) as unknown as Dockerode;

describe("docker runtimes", () => {
  it("lists the engine's runtimes, sorted; none named means runc", async () => {
    expect(await engineRuntimes(engine({ runsc: {}, runc: {} }))).toEqual(["runc", "runsc"]);
    expect(await engineRuntimes(engine(null))).toEqual(["runc"]);
  });

  it("a runtime the engine lacks is refused naming the engine and the runtimes it has", async () => {
    const docker = { product: "Docker", endpoint: "unix:///var/run/docker.sock" };
    expect(missingRuntimeMessage("runsc", ["runc", "runsc"], docker)).toBeNull();
    const message = missingRuntimeMessage("runsc", ["io.containerd.runc.v2", "runc"], docker);
    expect(message).toBe(
      'the Docker engine at unix:///var/run/docker.sock has no runtime "runsc"; it has: io.containerd.runc.v2, runc. Install gVisor and register runsc with Docker (see the Sandbox page), or choose runc.',
    );
    const runtimes = (names: string[]) => ({ ...docker, runtimes: () => Promise.resolve(names) });
    await expect(requireRuntime(runtimes(["runc"]), "runsc")).rejects.toThrow(
      'no runtime "runsc"; it has: runc',
    );
    await expect(requireRuntime(runtimes(["runc"]), "runc")).resolves.toBeUndefined();
  });

  it("on Podman it names Podman and gives Podman's way to add gVisor", () => {
    const podman = { product: "Podman", endpoint: "unix:///run/podman/podman.sock" };
    const message = missingRuntimeMessage("runsc", ["runc"], podman) ?? "";
    expect(message).toContain(
      'the Podman engine at unix:///run/podman/podman.sock has no runtime "runsc"',
    );
    expect(message).toContain('runtime = "runsc" in containers.conf');
    expect(message).not.toContain("Docker");
  });
});
