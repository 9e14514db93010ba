// A remote engine for real, all on loopback: a second dockerd behind TLS with certificates made
// here (and a client holding the wrong CA, refused), and the same engine over SSH to an sshd
// started here with keys made here (and host keys unknown or changed, refused). Then two
// installs sharing that one engine at once. Nothing leaves this machine.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dockerOrSkip, inspectIfThere } from "../../../../test-support/docker.js";
import { freePort } from "../../../../test-support/free-port.js";
import { startLoopbackSshd, type LoopbackSshd } from "../../../../test-support/loopback-sshd.js";
import { startPrivateDocker, type PrivateDocker } from "../../../../test-support/private-docker.js";
import { makeTlsMaterial, type TlsMaterial } from "../../../../test-support/test-certs.js";
import { removeTempDirs, tempDir } from "../../../../test-support/temp-dir.js";
import { currentOwner } from "../containers/container-owner.js";
import { OWNER_LABELS, SANDBOX_LABEL } from "../containers/container-spec.js";
import { SandboxContainer } from "../containers/sandbox-container.js";
import { Sandbox, sweepOrphanContainers } from "../sandbox.js";
import type { SandboxEngine } from "./sandbox-engine.js";
import { contextDigest } from "./docker-cli-config.js";
import { findEngine, type FindEngineOptions } from "./find-engine.js";

const fx = await dockerOrSkip();

let engine: PrivateDocker;
let tls: TlsMaterial;
let sshd: LoopbackSshd;
let tcpUrl = "";

/** Finds the engine the way the app does, for a user whose home and environment are these. */
function find(options: FindEngineOptions & { home: string }) {
  return findEngine({ env: {}, ...options });
}

describe.skipIf(!fx)("a remote engine on loopback", () => {
  it("starts: a dockerd behind TLS, and sshd in front of it", async () => {
    tls = makeTlsMaterial(path.join(tempDir("cm-tls-"), "certs"));
    const port = await freePort();
    tcpUrl = `tcp://127.0.0.1:${port}`;
    engine = await startPrivateDocker({ port, ...tls });
    await engine.loadImage(fx!.docker, fx!.image);
    sshd = await startLoopbackSshd(engine.dockerHost);
  });

  afterAll(async () => {
    await sshd?.close();
    await engine?.destroy();
    removeTempDirs();
  });

  const printOne = async (on: SandboxEngine, install: string): Promise<string> => {
    const sandbox = new Sandbox({
      engine: on,
      image: fx!.image,
      owner: currentOwner(install),
      poolSize: 0,
    });
    try {
      const result = await sandbox.run({ code: "print(1)" });
      expect(result.error).toBeNull();
      return result.stdout;
    } finally {
      await sandbox.close();
    }
  };

  it("DOCKER_HOST with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH: TLS with the client's certificate", async () => {
    const found = await find({
      home: tempDir(),
      env: { DOCKER_HOST: tcpUrl, DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: tls.clientDir },
    });
    expect(found.state).toBe("ready");
    if (found.state !== "ready") return;
    expect(found.endpoint).toBe(`${tcpUrl} (TLS)`);
    expect(found.remote).toBe(true);
    expect(await printOne(found.engine, "remote-tls")).toBe("1\n");
    // The same hardened spec there: one container made and read back.
    const container = await SandboxContainer.start(
      found.engine,
      fx!.image,
      currentOwner("remote-tls"),
    );
    try {
      const info = await found.docker.getContainer(container.id).inspect();
      expect(info.HostConfig).toMatchObject({
        NetworkMode: "none",
        ReadonlyRootfs: true,
        CapDrop: ["ALL"],
        PidsLimit: 64,
      });
    } finally {
      await container.remove();
    }
    found.close?.();
  });

  it("the current Docker context (config.json, contexts/meta and contexts/tls) is honoured", async () => {
    const home = tempDir();
    const docker = path.join(home, ".docker");
    const digest = contextDigest("team");
    mkdirSync(path.join(docker, "contexts", "meta", digest), { recursive: true });
    mkdirSync(path.join(docker, "contexts", "tls", digest, "docker"), { recursive: true });
    writeFileSync(path.join(docker, "config.json"), JSON.stringify({ currentContext: "team" }));
    writeFileSync(
      path.join(docker, "contexts", "meta", digest, "meta.json"),
      JSON.stringify({
        Name: "team",
        Endpoints: { docker: { Host: tcpUrl, SkipTLSVerify: false } },
      }),
    );
    for (const file of ["ca.pem", "cert.pem", "key.pem"]) {
      writeFileSync(
        path.join(docker, "contexts", "tls", digest, "docker", file),
        readFileSync(path.join(tls.clientDir, file)),
      );
    }
    const found = await find({ home });
    expect(found.state).toBe("ready");
    if (found.state === "ready") {
      expect(found.name).toBe("context-team");
      found.close?.();
    }
  });

  it("a certificate that does not verify is refused, saying so; nothing falls back", async () => {
    const found = await find({
      home: tempDir(),
      env: { DOCKER_HOST: tcpUrl, DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: tls.wrongCaDir },
    });
    expect(found.state).toBe("not-running");
    if (found.state === "ready") return;
    expect(found.message).toContain("does not verify");
    expect(found.message).toContain("refusing to connect");
    // Only the named engine was tried: no other engine stands in for the refused one.
    expect(found.engines?.map((e) => e.url)).toEqual([`${tcpUrl} (TLS)`]);
  });

  it("plain HTTP to a TLS engine says it wants TLS, not that Docker is not running", async () => {
    const found = await find({ home: tempDir(), env: { DOCKER_HOST: tcpUrl } });
    expect(found.state).toBe("not-running");
    if (found.state !== "ready") {
      expect(found.message).not.toContain("not running");
      expect(found.message).toMatch(/TLS/);
    }
  });

  it("over SSH to sshd on loopback: docker system dial-stdio, the host key checked", async () => {
    const found = await find({ home: sshd.home, preference: sshd.url });
    expect(found.state).toBe("ready");
    if (found.state !== "ready") return;
    expect(found.remote).toBe(true);
    expect(await printOne(found.engine, "remote-ssh")).toBe("1\n");
    found.close?.();
  });

  it("an SSH host key that is unknown or does not match is refused", async () => {
    const unknown = await find({ home: sshd.unknownHostHome, preference: sshd.url });
    expect(unknown.state).not.toBe("ready");
    if (unknown.state !== "ready") expect(unknown.message).toContain("is not in");
    const changed = await find({ home: sshd.wrongHostHome, preference: sshd.url });
    expect(changed.state).not.toBe("ready");
    if (changed.state !== "ready") expect(changed.message).toContain("does not match");
  });

  it("two installs share the engine at once: each sweeps only its own, pools stay apart", async () => {
    const found = await find({ home: sshd.home, preference: sshd.url });
    const viaTls = await find({
      home: tempDir(),
      env: { DOCKER_HOST: tcpUrl, DOCKER_TLS_VERIFY: "1", DOCKER_CERT_PATH: tls.clientDir },
    });
    if (found.state !== "ready" || viaTls.state !== "ready") throw new Error("engine not found");
    // Host A reaches the engine over SSH, host B over TLS: two installs, one engine.
    const a = currentOwner("team-a");
    const b = currentOwner("team-b");
    // Leftovers of each install, of a process that is gone.
    const leftA = await SandboxContainer.start(found.engine, fx!.image, { ...a, pid: 999_991 });
    const leftB = await SandboxContainer.start(viaTls.engine, fx!.image, { ...b, pid: 999_992 });
    const dead = (pid: number): boolean => pid !== 999_991 && pid !== 999_992;
    expect(await sweepOrphanContainers(found.engine, a, dead)).toBe(1);
    expect(await inspectIfThere(viaTls.docker, leftA.id)).toBeNull();
    expect(await inspectIfThere(viaTls.docker, leftB.id)).not.toBeNull();
    expect(await sweepOrphanContainers(viaTls.engine, b, dead)).toBe(1);

    const poolA = new Sandbox({ engine: found.engine, image: fx!.image, owner: a, poolSize: 2 });
    const poolB = new Sandbox({ engine: viaTls.engine, image: fx!.image, owner: b, poolSize: 2 });
    try {
      await Promise.all([poolA.poolFilled(), poolB.poolFilled()]);
      const runs = await Promise.all(
        [poolA, poolB, poolA, poolB].map((s, i) => s.run({ code: `import os\nprint(${i})` })),
      );
      expect(runs.map((r) => r.stdout)).toEqual(["0\n", "1\n", "2\n", "3\n"]);
      const of = async (install: string) =>
        engine.docker.listContainers({
          all: true,
          filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABELS.install}=${install}`] },
        });
      // Each pool holds only its own install's containers, refilled after the runs.
      await Promise.all([poolA.poolFilled(), poolB.poolFilled()]);
      for (const install of ["team-a", "team-b"]) {
        for (const info of await of(install))
          expect(info.Labels[OWNER_LABELS.install]).toBe(install);
      }
    } finally {
      await Promise.all([poolA.close(), poolB.close()]);
      found.close?.();
      viaTls.close?.();
    }
    expect(
      await engine.docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } }),
    ).toEqual([]);
  });
});
