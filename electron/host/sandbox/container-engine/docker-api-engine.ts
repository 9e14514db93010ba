// The engine boundary's one implementation today: the Docker API through dockerode, which
// serves Docker, Docker Desktop and its alternatives, Podman's compatible service and remote
// engines (TLS, SSH; the connection made by engine-connect.ts). What differs between them is
// said here or below: Podman's ways (podman-quirks.ts, engine-spec.ts), the engine's runtimes.
import type { Readable } from "node:stream";
import type Dockerode from "dockerode";
import { sandboxContainerSpec, SANDBOX_LABEL, OWNER_LABELS } from "../containers/container-spec.js";
import { refusedOr } from "../engine-refused.js";
import type { BuildEvent, ContextFile } from "../image.js";
import { DockerContainer } from "./docker-container.js";
import { dockerBuildImage } from "./docker-image-build.js";
import { engineRuntimes } from "./docker-runtimes.js";
import { DockerWatch } from "./docker-watch.js";
import { engineFlavour } from "./engine-flavour.js";
import { engineSpec } from "./engine-spec.js";
import { hasImage, loadArchive } from "./image-transfer.js";
import type {
  EngineContainer,
  EngineImage,
  ListedSandbox,
  SandboxEngine,
  SandboxSpec,
} from "./sandbox-engine.js";

/** What a DockerApiEngine is made from: a found engine (find-engine.ts), or a test's client. */
export interface DockerApiEngineSource {
  docker: Dockerode;
  endpoint: string;
  name?: string | undefined;
  kind?: "docker" | "podman" | undefined;
  remote?: boolean | undefined;
  close?: (() => void) | undefined;
}

export class DockerApiEngine implements SandboxEngine {
  readonly name: string;
  readonly endpoint: string;
  readonly remote: boolean;
  readonly product: string;
  readonly mountsHostFolders: boolean;
  /** The dockerode client itself, for what lies below the boundary (tests, engine detection). */
  readonly docker: Dockerode;
  private readonly closeConnection: () => void;

  constructor(source: DockerApiEngineSource) {
    this.docker = source.docker;
    this.endpoint = source.endpoint;
    this.name = source.name ?? source.endpoint;
    this.remote = source.remote ?? false;
    this.product = source.kind === "podman" ? "Podman" : "Docker";
    this.mountsHostFolders = !this.remote;
    this.closeConnection = () => source.close?.();
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

  async listImages(repository: string): Promise<EngineImage[]> {
    const images = await this.docker.listImages({ filters: { reference: [repository] } });
    return images.map((image) => ({
      tags: image.RepoTags ?? [],
      sizeBytes: image.Size,
      created: image.Created,
    }));
  }

  buildImage(
    files: readonly ContextFile[],
    onEvent?: (event: BuildEvent) => void,
  ): Promise<string> {
    return dockerBuildImage(this.docker, files, onEvent);
  }

  loadImage(archive: Readable): Promise<void> {
    return loadArchive(this.docker, archive);
  }

  async saveImage(image: string): Promise<Readable> {
    return (await this.docker.getImage(image).get()) as unknown as Readable;
  }

  async createSandbox(spec: SandboxSpec): Promise<EngineContainer> {
    const { image, nonce, owner, runtime, preload, slot, openSlot } = spec;
    const create = await engineSpec(
      this.docker,
      sandboxContainerSpec(image, nonce, owner, runtime, preload, slot, openSlot),
    );
    const handle = await this.docker.createContainer(create).catch((error: unknown) => {
      throw refusedOr(error);
    });
    const flavour = await engineFlavour(this.docker).catch(() => null);
    return new DockerContainer(handle, flavour);
  }

  async listSandboxes(install: string): Promise<ListedSandbox[]> {
    const list = await this.docker.listContainers({
      all: true,
      filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABELS.install}=${install}`] },
    });
    return list.map((info) => ({ id: info.Id, labels: info.Labels }));
  }

  container(id: string): EngineContainer {
    return new DockerContainer(this.docker.getContainer(id), null);
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
