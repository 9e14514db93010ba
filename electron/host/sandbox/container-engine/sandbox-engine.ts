// The engine boundary: everything the sandbox asks of a container engine, as one interface.
// Today one implementation serves Docker, Docker Desktop and its alternatives, Podman's
// compatible service and remote engines (TLS, SSH): the Docker API through dockerode, the
// connection made by engine-connect.ts and Podman's differences kept in podman-quirks.ts. A
// Kubernetes backend (docs/scale-out.md) is another implementation of the same interface.
import type { Readable } from "node:stream";
import type Dockerode from "dockerode";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { engineRuntimes } from "./docker-runtimes.js";
import { DockerWatch } from "./docker-watch.js";
import type { ContainerOwner } from "../containers/container-owner.js";
import { buildSandboxImage, type BuildEvent, type ContextFile } from "../image.js";
import { SandboxContainer } from "../containers/sandbox-container.js";
import { sweepOrphanContainers } from "../sandbox.js";
import type { FoundEngine } from "./find-engine.js";
import { hasImage, loadArchive } from "./image-transfer.js";

/**
 * One started sandbox and its attach stream: the runner's protocol goes through it (one JSON line
 * per message), whatever carries it (a Docker attach, a pod's attach).
 */
export type SandboxProcess = Pick<
  SandboxContainer,
  | "id"
  | "runtime"
  | "ready"
  | "ended"
  | "onStdout"
  | "write"
  | "unreadBytes"
  | "stage"
  | "staged"
  | "sendStart"
  | "exit"
  | "remove"
>;

export interface SandboxEngine {
  /** Its name in the engine list, and where it is (for messages and the audit log). */
  readonly name: string;
  readonly endpoint: string;
  readonly remote: boolean;
  /** Whether it answers now (rejects when it does not). */
  ping(): Promise<void>;
  /** The runtimes a sandbox may ask for here (runc, runsc). */
  runtimes(): Promise<string[]>;
  imagePresent(tag: string): Promise<boolean>;
  /** Builds the sandbox image from its context; resolves to the tag. */
  buildImage(files: readonly ContextFile[], onEvent?: (event: BuildEvent) => void): Promise<string>;
  /** Loads a `docker save` archive (an image built elsewhere). */
  loadImage(archive: Readable): Promise<void>;
  /**
   * Creates one hardened sandbox (container-spec.ts: no network, read-only root, every limit),
   * labelled with its owner, attached before it starts; one run, then removed.
   */
  startSandbox(
    image: string,
    owner: ContainerOwner,
    runtime: SandboxRuntime,
    preload: boolean,
  ): Promise<SandboxProcess>;
  /** Removes this install's sandboxes whose owner is provably gone (all of this process's with includeOwn). */
  sweep(self: ContainerOwner, includeOwn?: boolean): Promise<number>;
  /** Calls onLost once when the engine goes away; the returned function stops watching. */
  watch(onLost: (reason: string) => void, heartbeatMs: number): () => void;
  close(): void;
}

/** The Docker-API implementation: Docker, Podman's compatible service, remote engines. */
export class DockerApiEngine implements SandboxEngine {
  readonly name: string;
  readonly endpoint: string;
  readonly remote: boolean;
  private readonly docker: Dockerode;
  private readonly closeConnection: () => void;

  constructor(found: Pick<FoundEngine, "docker" | "endpoint" | "name" | "remote" | "close">) {
    this.docker = found.docker;
    this.endpoint = found.endpoint;
    this.name = found.name ?? found.endpoint;
    this.remote = found.remote ?? false;
    this.closeConnection = () => found.close?.();
  }

  /** The client, for the parts of the host that still speak dockerode directly (see docs). */
  get client(): Dockerode {
    return this.docker;
  }

  async ping(): Promise<void> {
    await this.docker.ping();
  }

  runtimes(): Promise<string[]> {
    return engineRuntimes(this.docker);
  }

  imagePresent(tag: string): Promise<boolean> {
    return hasImage(this.docker, tag);
  }

  buildImage(
    files: readonly ContextFile[],
    onEvent?: (event: BuildEvent) => void,
  ): Promise<string> {
    return buildSandboxImage(this.docker, files, onEvent);
  }

  loadImage(archive: Readable): Promise<void> {
    return loadArchive(this.docker, archive);
  }

  startSandbox(
    image: string,
    owner: ContainerOwner,
    runtime: SandboxRuntime,
    preload: boolean,
  ): Promise<SandboxProcess> {
    return SandboxContainer.start(this.docker, image, owner, runtime, preload);
  }

  sweep(self: ContainerOwner, includeOwn = false): Promise<number> {
    return sweepOrphanContainers(this.docker, self, undefined, includeOwn);
  }

  watch(onLost: (reason: string) => void, heartbeatMs: number): () => void {
    const watch = new DockerWatch(this.docker, { heartbeatMs, onLost });
    watch.start();
    return () => watch.stop();
  }

  close(): void {
    this.closeConnection();
  }
}
