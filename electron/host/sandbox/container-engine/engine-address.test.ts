import { describe, expect, it } from "vitest";
import { addressLabel, parseEngineUrl } from "./engine-address.js";

const tls = { verify: true, certDir: "/home/u/.docker" };

describe("engine addresses, read as the Docker CLI reads DOCKER_HOST", () => {
  it("unix, npipe, bare paths", () => {
    expect(parseEngineUrl("unix:///var/run/docker.sock")).toEqual({
      ok: true,
      address: { kind: "unix", path: "/var/run/docker.sock", url: "unix:///var/run/docker.sock" },
    });
    expect(parseEngineUrl("npipe:////./pipe/docker_engine")).toMatchObject({
      ok: true,
      address: { kind: "npipe", path: "//./pipe/docker_engine" },
    });
    expect(parseEngineUrl("/tmp/d.sock")).toMatchObject({ ok: true, address: { kind: "unix" } });
  });

  it("tcp is plain HTTP on 2375 unless TLS is asked for, then 2376 with the cert folder", () => {
    expect(parseEngineUrl("tcp://10.0.0.5")).toMatchObject({
      ok: true,
      address: { kind: "tcp", host: "10.0.0.5", port: 2375, tls: null },
    });
    const secure = parseEngineUrl("tcp://build.example", tls);
    expect(secure).toMatchObject({
      ok: true,
      address: {
        port: 2376,
        tls: {
          ca: "/home/u/.docker/ca.pem",
          cert: "/home/u/.docker/cert.pem",
          key: "/home/u/.docker/key.pem",
        },
      },
    });
    if (secure.ok) expect(addressLabel(secure.address)).toBe("tcp://build.example:2376 (TLS)");
    expect(parseEngineUrl("tcp://[::1]:2376", tls)).toMatchObject({
      ok: true,
      address: { host: "::1", port: 2376 },
    });
  });

  it("https without certificates is refused: TLS is never unverified", () => {
    const parsed = parseEngineUrl("https://build.example:2376");
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain("DOCKER_CERT_PATH");
  });

  it("ssh with user and port; a socket path is Podman's form", () => {
    expect(parseEngineUrl("ssh://deploy@build.example:2222")).toMatchObject({
      ok: true,
      address: { kind: "ssh", user: "deploy", host: "build.example", port: 2222, socket: null },
    });
    expect(parseEngineUrl("ssh://core@vm/run/podman/podman.sock")).toMatchObject({
      ok: true,
      address: { kind: "ssh", user: "core", port: 22, socket: "/run/podman/podman.sock" },
    });
    expect(parseEngineUrl("ssh://host")).toMatchObject({ ok: true, address: { user: null } });
  });

  it("mistakes are named", () => {
    for (const [text, words] of [
      ["ftp://x", "unknown scheme"],
      ["tcp://host:99999", "is not a port"],
      ["tcp://host/path", "takes no path"],
      ["ssh://u:pw@host", "password"],
      ["docker.sock", "not an engine address"],
    ] as const) {
      const parsed = parseEngineUrl(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.problem).toContain(words);
    }
  });
});
