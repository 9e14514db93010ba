import type { DockerStatusView, ImageStatusView } from "../../../shared/api/api-views.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import { checkRuntimeIn, savedRuntimeProblem } from "./container-engine/docker-runtimes.js";
import type { SandboxEngine } from "./container-engine/sandbox-engine.js";
import type { DockerStatus } from "./container-engine/docker-status.js";
import {
  DOCKER_HEARTBEAT_MS,
  DOCKER_RECONNECT_FIRST_MS,
  DOCKER_RECONNECT_MAX_MS,
  dockerIsGone,
  isDockerUnreachable,
  reconnectDelayMs,
} from "./container-engine/docker-watch.js";
import { SandboxUnavailable, type SandboxSupervisorOptions } from "./sandbox-supervisor-options.js";
import { EngineLooks } from "./engine-looks.js";
import {
  cannotRunYet,
  cutOffResult,
  dockerUnreachableMessage,
  supervisorDockerView,
  type DockerOutageEvent,
} from "./container-engine/docker-view.js";
import { buildImageReported } from "./sandbox-image-build.js";
import { imageStatusView, ImageProbes } from "./sandbox-image-view.js";
import { imageTagFor } from "./image.js";
import type { PoolGrowth } from "./pool-target.js";
import type { RunHooks, RunRequest } from "../core/ports/run-types.js";
import { Sandbox, sweepOrphanContainers } from "./sandbox.js";

export { dockerUnreachableMessage, type DockerOutageEvent };
export { SandboxUnavailable, type SandboxSupervisorOptions };

/**
 * The host's hold on Docker: which engine answers, whether the image is built, and the
 * Sandbox that runs code once both are true. Docker may start after the app does, and the
 * image may be built from the UI, so this can come to life at any time.
 */
export class SandboxSupervisor {
  private docker: DockerStatus | null = null;
  private sandbox: Sandbox | null = null;
  private building: Promise<void> | null = null;
  private readonly probes = new ImageProbes();
  private poolSize: number;
  private poolGrowth: PoolGrowth | undefined;
  private deadline: number;
  private currentRuntime: SandboxRuntime;
  private preload: boolean;
  private engine: string;
  readonly tag: string;
  /** Stops watching the engine that answered (its going away is noticed while nothing runs). */
  private watch: (() => void) | null = null;
  /** Set from the moment a ready engine is found gone until it answers again. */
  private outage: { endpoint: string; since: number } | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** Counts outages: a reconnect loop of an earlier one stops instead of running beside it. */
  private outageCount = 0;
  private closed = false;
  /**
   * Why runs are refused while the engine lacks the saved runtime (settings.json may name runsc
   * on an engine without gVisor): checked when an engine is first seen and when it is back.
   */
  private runtimeMissing: string | null = null;

  constructor(private readonly options: SandboxSupervisorOptions) {
    this.tag = imageTagFor(options.files);
    this.poolSize = options.poolSize;
    this.poolGrowth = options.poolGrowth;
    this.deadline = options.deadlineSeconds;
    this.currentRuntime = options.runtime ?? "runc";
    this.preload = options.preload ?? false;
    this.engine = options.engine ?? "";
  }

  get runtime(): SandboxRuntime {
    return this.currentRuntime;
  }

  /** The runtimes the engine offers; null while no engine answers. */
  async runtimes(): Promise<string[] | null> {
    if (this.docker?.state !== "ready") return null;
    return this.docker.engine.runtimes().catch(() => null);
  }

  /** Refuses a runtime the engine lacks, naming the engine and its runtimes (settings check it first). */
  async checkRuntime(runtime: SandboxRuntime): Promise<void> {
    if (runtime === "runc") return;
    const engine = this.docker?.state === "ready" ? this.docker.engine : null;
    checkRuntimeIn(runtime, await this.runtimes(), engine);
  }

  /** Why runs are refused because the engine lacks the chosen runtime; null otherwise. */
  get runtimeProblem(): string | null {
    return this.runtimeMissing;
  }

  /** Looks whether the engine has the chosen runtime; an engine that cannot say is not blamed. */
  private async checkEngineRuntime(engine: SandboxEngine): Promise<void> {
    const runtime = this.currentRuntime;
    const available = runtime === "runc" ? null : await engine.runtimes().catch(() => null);
    // The setting may have changed (and been checked) while the engine was asked.
    if (runtime === this.currentRuntime)
      this.runtimeMissing = savedRuntimeProblem(runtime, available, engine);
  }

  get deadlineSeconds(): number {
    return this.deadline;
  }

  get isBuilding(): boolean {
    return this.building !== null;
  }
  get poolCounts(): Sandbox["poolCounts"] | null {
    return this.sandbox?.poolCounts ?? null;
  }

  /** Why runs are refused at once while a lost engine is away; null otherwise. */
  get unreachable(): string | null {
    return this.outage ? dockerUnreachableMessage(this.outage.endpoint) : null;
  }

  dockerView(): DockerStatusView {
    const view = supervisorDockerView(this.docker, this.outage);
    return view.state === "ready" && this.runtimeMissing !== null
      ? { ...view, message: this.runtimeMissing }
      : view;
  }

  private readonly looks = new EngineLooks(() => this.engine);
  /** Whether the current tag was on the engine when last looked at (no Docker call). */
  imagePresent = false;

  /**
   * Looks for Docker again and starts the sandbox if the image is there; one look at a time per
   * engine choice (EngineLooks), or each would make a sandbox and warm containers of its own.
   */
  refresh(): Promise<DockerStatusView> {
    return this.looks.join(this.engine, (engine) => this.look(engine));
  }

  private async look(engine: string): Promise<DockerStatusView> {
    const before = JSON.stringify(this.dockerView());
    const wasReady = this.docker?.state === "ready" ? this.docker.endpoint : null;
    const status = await this.options.findDocker(engine);
    // Another engine chosen meanwhile (setEngine looks for it): this answer is dropped.
    const dropped = (): boolean => {
      if (!this.closed && engine === this.engine) return false;
      if (status.state === "ready") status.engine.close();
      return true;
    };
    if (dropped()) return this.dockerView();
    if (status.state === "ready") {
      // First sight of a ready engine, or back after an outage: it may lack the saved runtime.
      if (wasReady === null || this.outage) await this.checkEngineRuntime(status.engine);
      if (dropped()) return this.dockerView();
      this.docker = status;
      if (this.outage) await this.comeBack(status);
      else {
        await sweepOrphanContainers(status.engine, this.options.owner).catch(() => 0);
        await this.ensureSandbox();
        // setEngine or close() may have given this engine up meanwhile: it is not watched then.
        if (this.docker === status && !this.closed) this.watchEngine(status);
      }
    } else if (wasReady !== null && !this.outage) {
      // A check (the UI's, a poll) found the engine gone before the watch did.
      this.lost(wasReady, "Docker did not answer a check");
    } else if (!this.outage) {
      this.docker = status;
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

  private watchEngine(status: Extract<DockerStatus, { state: "ready" }>): void {
    if (this.watch) return;
    this.watch = status.engine.watch(
      (reason) => this.lost(status.endpoint, reason),
      DOCKER_HEARTBEAT_MS,
    );
  }

  /**
   * The engine went away: runs are refused at once from now on, the sandbox is given up (its
   * containers cannot be removed while the engine is away; they are swept when it is back),
   * and the engine is looked for again with back-off.
   */
  private lost(endpoint: string, reason: string): void {
    if (this.closed || this.outage) return;
    this.watch?.();
    this.watch = null;
    this.outage = { endpoint, since: Date.now() };
    this.outageCount++;
    const old = this.sandbox;
    this.sandbox = null;
    void old?.close().catch(() => undefined);
    this.options.onDockerChange?.(this.dockerView());
    this.options.onOutage?.({ phase: "lost", endpoint, reason });
    this.scheduleReconnect(0, this.outageCount);
  }

  private scheduleReconnect(attempt: number, outage: number): void {
    if (this.closed || !this.outage || outage !== this.outageCount) return;
    const delay = reconnectDelayMs(attempt, DOCKER_RECONNECT_FIRST_MS, DOCKER_RECONNECT_MAX_MS);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.refresh()
        .catch(() => undefined)
        .then(() => this.scheduleReconnect(attempt + 1, outage));
    }, delay);
    this.reconnectTimer.unref();
  }

  /**
   * The engine answers again after an outage. Runs stay refused until this install's leftovers
   * (containers of runs in flight and warm ones when it went away) are removed: the sweep
   * removes this process's own containers too, so no new one may exist before it is done.
   */
  private async comeBack(status: Extract<DockerStatus, { state: "ready" }>): Promise<void> {
    const outage = this.outage;
    if (!outage) return;
    const { owner } = this.options;
    const swept = await sweepOrphanContainers(status.engine, owner, undefined, true).catch(() => 0);
    await this.ensureSandbox(true);
    // Up, not ready: runs stay refused until this returns, and a run meanwhile would go cold
    // rather than wait for a warm container's imports anyway.
    const warm = this.sandbox ? await this.sandbox.poolStarted() : 0;
    // Quitting, or another engine chosen meanwhile (setEngine ended the outage): not back.
    if (this.closed || this.docker !== status) return;
    this.outage = null;
    this.watchEngine(status);
    this.options.onOutage?.({
      phase: "back",
      endpoint: status.endpoint,
      downMs: Date.now() - outage.since,
      sweptContainers: swept,
      warmContainers: warm,
    });
  }

  /**
   * Makes the Sandbox once Docker and the image are there. Never after close() (its warm
   * containers would outlive the app), nor during an outage unless coming back from it (the
   * come-back sweep would remove its containers).
   */
  private async ensureSandbox(comingBack = false): Promise<void> {
    if (!this.maySandbox(comingBack)) return;
    const docker = this.docker;
    if (this.sandbox || docker?.state !== "ready") return;
    const engine = docker.engine;
    if (!(await engine.imagePresent(this.tag))) {
      this.imagePresent = false;
      return;
    }
    this.imagePresent = true;
    // Another caller may have made it, another engine been chosen, or the app quit, while this
    // one waited for Docker.
    if (this.sandbox || this.docker !== docker || !this.maySandbox(comingBack)) return;
    const { owner, stagedTools, slots } = this.options;
    this.sandbox = new Sandbox({
      ...{ engine, image: this.tag, owner, poolSize: this.poolSize, poolGrowth: this.poolGrowth },
      ...{ deadlineSeconds: this.deadline, runtime: this.currentRuntime, preload: this.preload },
      ...{ stagedTools, slots },
    });
  }

  private maySandbox(comingBack: boolean): boolean {
    return !this.closed && (this.outage === null || comingBack);
  }

  async imageStatus(): Promise<ImageStatusView> {
    return imageStatusView({
      tag: this.tag,
      files: this.options.files,
      building: this.isBuilding,
      docker: this.docker,
      sandbox: () => this.sandbox,
      probes: this.probes,
      onPresent: (present) => {
        this.imagePresent = present;
      },
    });
  }

  /**
   * Starts a build in the background; false when one is already running or the engine is down.
   * A missing base image comes from another engine found or `baseFrom`, as in `codemode image build`.
   */
  startBuild(baseFrom?: string): boolean {
    if (this.building || this.docker?.state !== "ready") return false;
    const { files, otherEngines } = this.options;
    this.building = buildImageReported(
      { engine: this.docker.engine, files, tag: this.tag, baseFrom, otherEngines },
      this.options,
      () => this.ensureSandbox(),
    ).finally(() => {
      this.building = null;
    });
    return true;
  }

  /** Waits for the chosen engine's first look (EngineLooks); not during an outage. */
  async settled(signal?: AbortSignal): Promise<void> {
    if (!this.outage) await this.looks.settled(signal);
  }

  async run(request: RunRequest, hooks: RunHooks): Promise<RunResult> {
    await this.settled(hooks.signal);
    if (this.outage) throw new SandboxUnavailable(dockerUnreachableMessage(this.outage.endpoint));
    if (this.runtimeMissing !== null) throw new SandboxUnavailable(this.runtimeMissing);
    const sandbox = this.sandbox;
    const docker = this.docker;
    if (!sandbox || docker?.state !== "ready") throw new SandboxUnavailable(cannotRunYet(docker));
    let result: RunResult;
    try {
      result = await sandbox.run(request, hooks);
    } catch (error) {
      // A failed call is the other way an outage shows: say so, and notice it for every run.
      // One failed connection is not an outage: the come-back sweep would kill every run in
      // flight, so a ping must fail too before the engine is taken as gone.
      const lostMeanwhile = this.outage !== null && this.sandbox !== sandbox;
      if (!lostMeanwhile) {
        if (!isDockerUnreachable(error) || !(await dockerIsGone(docker.engine))) throw error;
      }
      this.lost(docker.endpoint, "a run and a ping could not reach Docker");
      throw new SandboxUnavailable(dockerUnreachableMessage(docker.endpoint));
    }
    // The engine went away under this run: say that, not just that its container ended.
    const cutOff = this.sandbox !== sandbox && this.outage !== null;
    return cutOff ? cutOffResult(result, docker.endpoint) : result;
  }

  setPoolSize(size: number): void {
    this.poolSize = size;
    this.sandbox?.setPoolSize(size);
  }

  setPoolGrowth(growth: PoolGrowth): void {
    this.poolGrowth = growth;
    this.sandbox?.setPoolGrowth(growth);
  }

  setRuntime(runtime: SandboxRuntime): void {
    this.currentRuntime = runtime;
    // Settings checked the new runtime against the engine before saving it (checkRuntime).
    if (this.runtimeMissing !== null) {
      this.runtimeMissing = null;
      this.options.onDockerChange?.(this.dockerView());
    }
    this.sandbox?.setRuntime(runtime);
  }

  /** The catalog changed: the warm containers get it staged (Sandbox.catalogChanged). */
  catalogChanged(): void {
    this.sandbox?.catalogChanged();
  }

  setPreload(preload: boolean): void {
    this.preload = preload;
    this.sandbox?.setPreload(preload);
  }

  setDeadlineSeconds(seconds: number): void {
    this.deadline = seconds;
    if (this.sandbox) this.sandbox.deadlineSeconds = seconds;
  }

  /** Another engine was chosen: this one's sandbox is given up and the choice looked for. */
  async setEngine(engine: string): Promise<DockerStatusView> {
    const [old, status] = [this.sandbox, this.docker];
    this.watch?.();
    this.engine = engine;
    this.looks.choose();
    this.watch = this.docker = this.outage = this.sandbox = null;
    // Its containers are removed through its connection, so that goes last.
    await old?.close().catch(() => undefined);
    if (status?.state === "ready") status.engine.close();
    return this.refresh();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.looks.close();
    this.watch?.();
    this.watch = null;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    // A build in progress is left to Docker: quitting must not wait minutes for it.
    await this.sandbox?.close();
    this.sandbox = null;
  }
}
