import Dockerode from "dockerode";
import { afterAll, describe, inject, it } from "vitest";
import { engineRuntimes } from "../electron/host/sandbox/container-engine/docker-runtimes.js";
import { DockerApiEngine } from "../electron/host/sandbox/container-engine/docker-api-engine.js";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import type { SandboxEngine } from "../electron/host/sandbox/container-engine/sandbox-engine.js";
import { SANDBOX_RUNTIMES, type SandboxRuntime } from "../shared/settings.js";
import {
  currentOwner,
  type ContainerOwner,
} from "../electron/host/sandbox/containers/container-owner.js";
import { OWNER_LABELS } from "../electron/host/sandbox/containers/container-spec.js";
import { readInstallId } from "../electron/host/sandbox/containers/install-id.js";
import { podmanInstalled, startPrivatePodman } from "./private-podman.js";

export interface DockerFixture {
  /** The Docker-API client, for what a test checks below the engine boundary. */
  docker: Dockerode;
  /** The same engine through its boundary: what Sandbox and SandboxContainer take. */
  engine: SandboxEngine;
  image: string;
}

/**
 * Docker tests never skip silently in CI: under CI=true a missing engine fails the
 * test file. Elsewhere they skip, and say why.
 */
export async function dockerOrSkip(): Promise<DockerFixture | null> {
  const provided = inject("sandboxImage");
  if (!provided.ok) {
    if (process.env.CI === "true") {
      throw new Error(`Docker is required in CI: ${provided.reason}`);
    }
    process.stderr.write(`skipping Docker tests: ${provided.reason}\n`);
    return null;
  }
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  return { docker: status.docker, engine: status.engine, image: provided.tag };
}

/** The install id of containers the tests start directly (not through a daemon or serve). */
export const TEST_HOME_ID = "codemode-tests";

/** An owner for containers the tests start directly: this test process, install TEST_HOME_ID. */
export function testOwner(): ContainerOwner {
  return currentOwner(TEST_HOME_ID);
}

/** Docker's answer for a container that is not (or no longer) there. */
function isNoSuchContainer(err: unknown): boolean {
  return (err as { statusCode?: number } | null)?.statusCode === 404;
}

/**
 * A listed container's inspect, or null when it went between the listing and now: the host's
 * pool removes and replaces containers at its own pace (a run's container once it ends, a lean
 * spare), so a test reading a listing must not fail on one that has just gone.
 */
export async function inspectIfThere(
  docker: Dockerode,
  id: string,
): Promise<Dockerode.ContainerInspectInfo | null> {
  try {
    return await docker.getContainer(id).inspect();
  } catch (err) {
    if (isNoSuchContainer(err)) return null;
    throw err;
  }
}

/** A listed container's CPU time so far (ns), or 0 when it has gone since the listing. */
export async function cpuTimeIfThere(docker: Dockerode, id: string): Promise<number> {
  try {
    const stats = (await docker.getContainer(id).stats({ stream: false })) as {
      cpu_stats?: { cpu_usage?: { total_usage?: number } };
    };
    return stats.cpu_stats?.cpu_usage?.total_usage ?? 0;
  } catch (err) {
    if (isNoSuchContainer(err)) return 0;
    throw err;
  }
}

/** Sandbox containers of one data directory's install (any state), whoever started them. */
export async function installContainers(
  docker: Dockerode,
  home: string,
): Promise<Dockerode.ContainerInfo[]> {
  const install = await readInstallId(home).catch(() => null);
  if (install === null) return [];
  return docker.listContainers({
    all: true,
    filters: { label: ["codemode.sandbox=1", `${OWNER_LABELS.install}=${install}`] },
  });
}

/** Sandbox containers this test process left behind: must be none after each test. */
export async function leftoverContainers(docker: Dockerode): Promise<string[]> {
  const list = await docker.listContainers({
    all: true,
    filters: { label: ["codemode.sandbox=1", `codemode.owner-pid=${process.pid}`] },
  });
  return list.map((c) => c.Id);
}

/**
 * The runtimes the hardening tests run on: runc and gVisor's runsc. Under CI=true a missing
 * runsc fails the test file (CI installs and registers it); elsewhere it is skipped, saying so.
 */
export async function sandboxRuntimes(docker: Dockerode): Promise<SandboxRuntime[]> {
  const available = await engineRuntimes(docker);
  const missing = SANDBOX_RUNTIMES.filter((runtime) => !available.includes(runtime));
  if (missing.length > 0) {
    const reason = `the Docker engine lacks ${missing.join(", ")} (it has ${available.join(", ")})`;
    if (process.env.CI === "true") throw new Error(`runsc is required in CI: ${reason}`);
    process.stderr.write(`skipping sandbox tests on ${missing.join(", ")}: ${reason}\n`);
  }
  return SANDBOX_RUNTIMES.filter((runtime) => available.includes(runtime));
}

/** The engine, or null where Docker tests skip, and the runtimes the hardening tests run on. */
export interface DockerOnRuntimes {
  fx: DockerFixture | null;
  runtimes: SandboxRuntime[];
}

/**
 * dockerOrSkip, then sandboxRuntimes: under CI=true a missing engine, or an engine without
 * runsc, fails the test file; elsewhere what is missing is skipped, saying so.
 */
export async function dockerOnRuntimes(): Promise<DockerOnRuntimes> {
  const fx = await dockerOrSkip();
  return { fx, runtimes: fx ? await sandboxRuntimes(fx.docker) : [] };
}

/**
 * A describe block once per runtime the engine has (`%s` in the title names it). Every block is
 * collected before any test runs: make a warm pool (or a spy) in beforeAll, not in the block's
 * body, or one runtime's containers are alive while the other's tests check for leftovers.
 */
export function describeEachRuntime(
  on: DockerOnRuntimes,
  title: string,
  fn: (runtime: SandboxRuntime) => void,
): void {
  describe.skipIf(!on.fx).each(on.runtimes)(title, fn);
}

/**
 * `it` for a test that applies on one runtime alone (say why at the test), inside a
 * describeEachRuntime block: on the others it is not registered, so a Docker run shows no
 * skipped test.
 */
export function itOnlyOn(
  runtime: SandboxRuntime,
  only: SandboxRuntime,
): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  return (name, fn, timeout) => {
    if (runtime === only) it(name, fn, timeout);
  };
}

/** A describe block of gVisor's own behaviour: run where the engine has runsc (always in CI). */
export function describeOnRunsc(on: DockerOnRuntimes, title: string, fn: () => void): void {
  describe.skipIf(!on.fx || !on.runtimes.includes("runsc"))(title, fn);
}

/** Podman's service as a fixture: its client, and the engine through the boundary. */
function podmanFixture(docker: Dockerode, name: string, image: string): DockerFixture {
  return {
    docker,
    engine: new DockerApiEngine({ docker, endpoint: name, name, kind: "podman" }),
    image,
  };
}

/** A Docker-API engine the hardening tests run on, with the runtime it runs containers under. */
export interface EngineUnderTest {
  /** "docker": the machine's engine; "podman": Podman's compatible service (private-podman.ts). */
  engine: "docker" | "podman";
  runtime: SandboxRuntime;
  fx: DockerFixture;
}

/**
 * The shared Docker engine on each runtime it has, then Podman's service on runc and on runsc
 * (startPrivatePodman, the sandbox image copied in). Under CI=true a missing podman fails the
 * file; elsewhere Podman is skipped, saying so. The Podman services end when the file does.
 */
export async function enginesUnderTest(on: DockerOnRuntimes): Promise<EngineUnderTest[]> {
  const engines: EngineUnderTest[] = on.runtimes.map((runtime) => ({
    engine: "docker",
    runtime,
    fx: on.fx!,
  }));
  if (!on.fx) return engines;
  if (!podmanInstalled()) {
    if (process.env.CI === "true")
      throw new Error("podman is required in CI (.ci/run installs it)");
    process.stderr.write("skipping the Podman runs: podman is not installed\n");
    return engines;
  }
  const podman = await startPrivatePodman();
  afterAll(() => podman.destroy());
  await podman.loadImage(on.fx.docker, on.fx.image);
  engines.push({
    engine: "podman",
    runtime: "runc",
    fx: podmanFixture(podman.runc.docker, "podman-runc", on.fx.image),
  });
  if (podman.runsc) {
    engines.push({
      engine: "podman",
      runtime: "runsc",
      fx: podmanFixture(podman.runsc.docker, "podman-runsc", on.fx.image),
    });
  } else if (process.env.CI === "true") {
    throw new Error("runsc is required in CI for the Podman runs");
  }
  return engines;
}
