// The engine boundary: everything the sandbox asks of a container engine, as one interface.
// Sandbox, SandboxContainer, the warm pool, the sweep, the image build and the image status all
// take a SandboxEngine and nothing below it. Today one implementation (docker-api-engine.ts)
// serves Docker, Docker Desktop and its alternatives, Podman's compatible service and remote
// engines (TLS, SSH). A Kubernetes backend (docs/scale-out.md) is another implementation.
import type { Readable } from "node:stream";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import type { ContainerOwner } from "../containers/container-owner.js";
import type { BuildEvent, ContextFile } from "../image.js";

/** What one sandbox is made from; the implementation says it as its hardened spec (container-spec.ts). */
export interface SandboxSpec {
  image: string;
  /** The runner's first argument: it reads nothing of its input before this line. */
  nonce: string;
  owner: ContainerOwner;
  runtime: SandboxRuntime;
  /** The runner imports the heavy libraries while it waits (warm containers only). */
  preload: boolean;
  /**
   * A folder of this machine mounted read-write (noexec where the engine can say so) at the
   * image's slot path: a run's workspace is put there when the container is taken. Only for
   * engines that mount host folders (`mountsHostFolders`).
   */
  slot?: string | undefined;
  /** Runs no runner: opens what a run left in `slot` to the host, then ends (container-spec.ts). */
  openSlot?: boolean | undefined;
}

/** How a container ended. */
export interface ContainerExit {
  exitCode: number | null;
  oomKilled: boolean;
}

/**
 * The attach stream of one container: the runner's stdin and its stdout/stderr as they come.
 * The runner's protocol goes through it (one JSON line per message), whatever carries it (a
 * Docker attach with its 8-byte frames, a pod's attach channels).
 */
export interface SandboxAttach {
  /** Each piece of output, in order; set once, before the container starts. */
  onData(listener: (stream: "stdout" | "stderr", data: Buffer) => void): void;
  write(text: string): void;
  /** Bytes written and still held here (the runner is not reading). */
  readonly unreadBytes: number;
  readonly destroyed: boolean;
  /** Resolves when the stream ends: the runner exited or the container was killed. */
  readonly ended: Promise<void>;
  destroy(): void;
}

/** One created container of the engine. */
export interface EngineContainer {
  readonly id: string;
  /** Attaches stdin, stdout and stderr; done before start() so no byte is missed. */
  attach(): Promise<SandboxAttach>;
  start(): Promise<void>;
  /** Waits for the container to stop and reads how it ended (null status when it cannot say). */
  wait(): Promise<ContainerExit>;
  /** Waits for the container to stop: true once it has, false when the engine cannot say. */
  stopped(): Promise<boolean>;
  /** Whether it runs now; null when it is gone. */
  inspect(): Promise<{ running: boolean } | null>;
  kill(): Promise<void>;
  /** Kills and removes it; already gone is fine. */
  remove(): Promise<void>;
}

/** A sandbox container the engine lists: its id and its labels (owner, install). */
export interface ListedSandbox {
  id: string;
  labels: Record<string, string>;
}

/** An image the engine holds. */
export interface EngineImage {
  tags: string[];
  sizeBytes: number;
  /** Seconds since the epoch. */
  created: number;
}

export interface SandboxEngine {
  /** Its name in the engine list, and where it is (for messages and the audit log). */
  readonly name: string;
  readonly endpoint: string;
  readonly remote: boolean;
  /** What it is, for messages and advice: "Docker", "Podman". */
  readonly product: string;
  /**
   * Whether a folder of this machine can be mounted into a sandbox (the workspace slot): a
   * local engine can; a remote one (TLS, SSH) mounts its own host's folders, not ours.
   */
  readonly mountsHostFolders: boolean;
  /** Whether it answers now (rejects when it does not). */
  ping(): Promise<void>;
  /** The runtimes a sandbox may ask for here (runc, runsc). */
  runtimes(): Promise<string[]>;

  imagePresent(tag: string): Promise<boolean>;
  /** The images whose name is `repository` (any tag). */
  listImages(repository: string): Promise<EngineImage[]>;
  /** Builds the sandbox image from its context; resolves to the tag. */
  buildImage(files: readonly ContextFile[], onEvent?: (event: BuildEvent) => void): Promise<string>;
  /** Loads a `docker save` archive (an image built elsewhere). */
  loadImage(archive: Readable): Promise<void>;
  /** An image as a `docker save` archive, to load into another engine. */
  saveImage(image: string): Promise<Readable>;

  /**
   * Creates one hardened sandbox container (container-spec.ts: no network, read-only root,
   * every limit), labelled with its owner; not started. An engine's refusal is EngineRefused.
   */
  createSandbox(spec: SandboxSpec): Promise<EngineContainer>;
  /** The sandbox containers of one install (by label), in any state. */
  listSandboxes(install: string): Promise<ListedSandbox[]>;
  /** A handle on a listed container. */
  container(id: string): EngineContainer;

  /** Calls onLost once when the engine goes away; the returned function stops watching. */
  watch(onLost: (reason: string) => void, heartbeatMs: number): () => void;
  close(): void;
}
