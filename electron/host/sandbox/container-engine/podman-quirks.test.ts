import { describe, expect, it } from "vitest";
import { sandboxContainerSpec } from "../containers/container-spec.js";
import { flavourFrom } from "./engine-flavour.js";
import { adaptSpec, memoryKilled, PODMAN_NPROC_RLIMIT, podmanRuntimes } from "./podman-quirks.js";
import { baseImageOf } from "./image-transfer.js";
import { parseMachineInspect } from "./podman-machine.js";

const owner = { install: "i", host: "h", boot: "b", pidns: "p", pid: 1 };
const spec = sandboxContainerSpec("img", "n", owner);
const docker = { product: "docker", rootless: false, version: "28" } as const;
const rootful = { product: "podman", rootless: false, version: "4.3.1" } as const;
const rootless = { ...rootful, rootless: true };

describe("Podman quirks", () => {
  it("tells Podman from Docker by its version's components, rootless by its security options", () => {
    expect(flavourFrom({ Version: "28" }, {})).toEqual(docker);
    expect(
      flavourFrom(
        { Version: "4.3.1", Components: [{ Name: "Podman Engine", Version: "4.3.1" }] },
        { SecurityOptions: ["name=rootless"] },
      ),
    ).toEqual(rootless);
  });

  it("a workspace slot is a read-write mount; on Podman noexec, nosuid and nodev too", () => {
    const slotted = sandboxContainerSpec("img", "n", owner, "runc", false, "/data/slots/1");
    expect(slotted.HostConfig!.Mounts).toEqual([
      { Type: "bind", Source: "/data/slots/1", Target: "/codemode-slot", ReadOnly: false },
    ]);
    expect(adaptSpec(slotted, docker)).toBe(slotted);
    const podman = adaptSpec(slotted, rootful).HostConfig!;
    expect(podman.Mounts).toEqual([]);
    expect(podman.Binds).toEqual(["/data/slots/1:/codemode-slot:rw,noexec,nosuid,nodev"]);
  });

  it("the spec is Docker's as it is; on rootful Podman it names nproc and closes /run and /var/tmp", () => {
    expect(adaptSpec(spec, docker)).toBe(spec);
    const podman = adaptSpec(spec, rootful).HostConfig!;
    expect(podman.Ulimits).toContainEqual({
      Name: "nproc",
      Soft: PODMAN_NPROC_RLIMIT,
      Hard: PODMAN_NPROC_RLIMIT,
    });
    expect(podman.Tmpfs?.["/run"]).toMatch(/^ro,noexec/);
    expect(podman.Tmpfs?.["/tmp"]).toBe(spec.HostConfig!.Tmpfs!["/tmp"]);
    expect(podman.Binds).toEqual([]);
    // Every other limit is the same object's value.
    expect({ ...podman, Ulimits: [], Tmpfs: {} }).toEqual({
      ...spec.HostConfig,
      Ulimits: [],
      Tmpfs: {},
    });
    expect(adaptSpec(spec, rootless).HostConfig!.Ulimits).toEqual(spec.HostConfig!.Ulimits);
  });

  it("only Podman's default runtime counts; a SIGKILL on Podman reads as the memory limit", () => {
    expect(
      podmanRuntimes({ Runtimes: { runc: {}, runsc: {}, kata: {} }, DefaultRuntime: "runc" }),
    ).toEqual(["runc"]);
    expect(memoryKilled({ OOMKilled: false, ExitCode: 137 }, rootful)).toBe(true);
    expect(memoryKilled({ OOMKilled: false, ExitCode: 137 }, docker)).toBe(false);
    expect(memoryKilled({ OOMKilled: true, ExitCode: 137 }, docker)).toBe(true);
  });

  it("reads the base image and podman machine's sockets", () => {
    expect(baseImageOf("# c\nFROM --platform=linux/amd64 debian:trixie-slim AS base\nRUN x")).toBe(
      "debian:trixie-slim",
    );
    expect(
      parseMachineInspect(
        JSON.stringify([
          { Name: "m", ConnectionInfo: { PodmanSocket: { Path: "/s.sock" } } },
          { Name: 1 },
        ]),
      ),
    ).toEqual([{ name: "m", socket: "/s.sock" }]);
    expect(parseMachineInspect("not json")).toEqual([]);
  });
});
