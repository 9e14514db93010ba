import type { DockerStatusView, ImageStatusView } from "../../../shared/api/api-views.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { DockerStatus } from "../docker/docker-status.js";
import { RunNotStarted } from "../engine/run-not-started.js";
import {
  buildSandboxImage,
  imageTagFor,
  sandboxImageStatus,
  type BuildEvent,
  type ContextFile,
} from "../sandbox/image.js";
import { probeImage, type ImageProbe } from "../sandbox/image-probe.js";
import type { ContainerOwner } from "../sandbox/container-spec.js";
import type { RunHooks, RunRequest } from "../sandbox/run-types.js";
import { Sandbox, sweepOrphanContainers } from "../sandbox/sandbox.js";

/** A run could not start because the sandbox is not there: the message says what to do. */
export class SandboxUnavailable extends RunNotStarted {
  override name = "SandboxUnavailable";
}

export interface SandboxSlotOptions {
  findDocker: () => Promise<DockerStatus>;
  files: ContextFile[];
  owner: ContainerOwner;
  poolSize: () => number;
  deadlineSeconds: () => number;
  onDockerChange?: (view: DockerStatusView) => void;
  onBuildEvent?: (event: BuildEvent) => void;
  onBuildFinished?: (result: {
    tag: string;
    ok: boolean;
    error: string | null;
    durationMs: number;
  }) => void;
}

/**
 * The host's hold on Docker: which engine answers, whether the image is built, and the
 * Sandbox that runs code once both are true. Docker may start after the app does, and the
 * image may be built from the UI, so this can come to life at any time.
 */
export class SandboxSlot {
  private docker: DockerStatus | null = null;
  private sandbox: Sandbox | null = null;
  private building: Promise<void> | null = null;
  /** One probe per image tag, shared by every caller (a failed one is retried later). */
  private probes = new Map<string, Promise<ImageProbe | null>>();
  readonly tag: string;

  constructor(private readonly options: SandboxSlotOptions) {
    this.tag = imageTagFor(options.files);
  }

  get deadlineSeconds(): number {
    return this.options.deadlineSeconds();
  }

  get isBuilding(): boolean {
    return this.building !== null;
  }

  dockerView(): DockerStatusView {
    const status = this.docker;
    if (status === null) {
      return {
        state: "not-running",
        endpoint: null,
        version: null,
        tried: [],
        message: "Docker has not been checked yet.",
      };
    }
    if (status.state === "ready") {
      return {
        state: "ready",
        endpoint: status.endpoint,
        version: status.version,
        tried: [],
        message: null,
      };
    }
    return {
      state: status.state,
      endpoint: null,
      version: null,
      tried: status.tried,
      message: status.message,
    };
  }

  private refreshing: Promise<DockerStatusView> | null = null;
  /** Whether the current tag was on the engine when last looked at (no Docker call). */
  imagePresent = false;

  /**
   * Looks for Docker again and starts the sandbox if the image is there. One look at a time:
   * while Docker is starting, polls and clicks would otherwise pile up and each make a
   * sandbox (and its warm containers) of its own.
   */
  refresh(): Promise<DockerStatusView> {
    this.refreshing ??= this.look().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async look(): Promise<DockerStatusView> {
    const before = JSON.stringify(this.dockerView());
    this.docker = await this.options.findDocker();
    if (this.docker.state === "ready") {
      await sweepOrphanContainers(this.docker.docker, this.options.owner).catch(() => 0);
      await this.ensureSandbox();
    } else {
      this.imagePresent = false;
      if (this.sandbox) {
        const old = this.sandbox;
        this.sandbox = null;
        await old.close().catch(() => undefined);
      }
    }
    const view = this.dockerView();
    if (JSON.stringify(view) !== before) this.options.onDockerChange?.(view);
    return view;
  }

  private async ensureSandbox(): Promise<void> {
    if (this.sandbox || this.docker?.state !== "ready") return;
    const docker = this.docker.docker;
    try {
      await docker.getImage(this.tag).inspect();
    } catch {
      this.imagePresent = false;
      return;
    }
    this.imagePresent = true;
    // Another caller may have made it while this one waited for Docker.
    if (this.sandbox) return;
    this.sandbox = new Sandbox({
      docker,
      image: this.tag,
      owner: this.options.owner,
      poolSize: this.options.poolSize(),
      deadlineSeconds: this.options.deadlineSeconds(),
    });
  }

  async imageStatus(): Promise<ImageStatusView> {
    const empty: ImageStatusView = {
      tag: this.tag,
      present: false,
      stale: [],
      sizeBytes: null,
      created: null,
      python: null,
      libraries: {},
      building: this.isBuilding,
    };
    if (this.docker?.state !== "ready") return empty;
    const status = await sandboxImageStatus(this.docker.docker, this.options.files);
    this.imagePresent = status.present;
    let probe: ImageProbe | null = null;
    if (status.present && this.sandbox) {
      const tag = this.tag;
      let pending = this.probes.get(tag);
      if (!pending) {
        pending = probeImage(this.sandbox).catch(() => null);
        this.probes.set(tag, pending);
        void pending.then((result) => {
          if (result === null) this.probes.delete(tag);
        });
      }
      probe = await pending;
    }
    return {
      ...empty,
      present: status.present,
      stale: status.stale,
      sizeBytes: status.sizeBytes,
      created: status.created,
      python: probe?.python ?? null,
      libraries: probe?.libraries ?? {},
    };
  }

  /** Starts a build in the background; false when one is already running or Docker is down. */
  startBuild(): boolean {
    if (this.building || this.docker?.state !== "ready") return false;
    const docker = this.docker.docker;
    const started = Date.now();
    this.building = buildSandboxImage(docker, this.options.files, (event) =>
      this.options.onBuildEvent?.(event),
    )
      .then(
        async () => {
          await this.ensureSandbox();
          this.options.onBuildFinished?.({
            tag: this.tag,
            ok: true,
            error: null,
            durationMs: Date.now() - started,
          });
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          this.options.onBuildFinished?.({
            tag: this.tag,
            ok: false,
            error: message,
            durationMs: Date.now() - started,
          });
        },
      )
      .finally(() => {
        this.building = null;
      });
    return true;
  }

  run(request: RunRequest, hooks: RunHooks): Promise<RunResult> {
    if (!this.sandbox) {
      const docker = this.docker;
      if (docker === null) {
        throw new SandboxUnavailable("Code Mode cannot run code: Docker has not been found yet.");
      }
      if (docker.state !== "ready") {
        throw new SandboxUnavailable(`Code Mode cannot run code: ${docker.message}`);
      }
      throw new SandboxUnavailable(
        "Code Mode cannot run code yet: its sandbox image is not built. Open Code Mode and build it (Sandbox page), or run `codemode image build`.",
      );
    }
    this.sandbox.deadlineSeconds = this.options.deadlineSeconds();
    return this.sandbox.run(request, hooks);
  }

  setPoolSize(size: number): void {
    this.sandbox?.setPoolSize(size);
  }

  async close(): Promise<void> {
    // A build in progress is left to Docker: quitting must not wait minutes for it.
    await this.sandbox?.close();
    this.sandbox = null;
  }
}
