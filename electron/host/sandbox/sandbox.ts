import { POOL_LIMITS, RUN_LIMITS } from "../../../shared/limits.js";
import type { RunResult } from "../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import { ownedBySelf, ownerGone, type ContainerOwner } from "./containers/container-owner.js";
import { labelledOwner } from "./containers/container-spec.js";
import type { SandboxEngine } from "./container-engine/sandbox-engine.js";
import { runInContainer, type Clock } from "./runner/run-session.js";
import type { RunHooks, RunRequest, SandboxTool } from "../core/ports/run-types.js";
import { pidAlive } from "../util/process-place.js";
import type { PoolGrowth } from "./pool-target.js";
import { SandboxContainer } from "./containers/sandbox-container.js";
import { RemovalsAfterAnswer } from "./containers/removals-after-answer.js";
import { toolsJson } from "../core/ports/tools-json.js";
import { WarmPool } from "./warm-pool.js";
import { containerNeed } from "./container-need.js";
import { slotOpener, type SlotOpener } from "./workspaces/slot-opener.js";
import type { SlotRoot } from "./workspaces/workspace-slots.js";
import { keepAfterStop } from "./workspaces/keep-after-stop.js";
import {
  denyExecWay,
  ranToItsEnd,
  watchWorkspace,
  withWorkspace,
  WorkspaceUnavailable,
  workspacesRefusal,
} from "./workspaces/workspace-run.js";

/**
 * A catalog change replaces the idle containers staged with another catalog at most this
 * often; changes between collapse into one review when it ends. A wrapped server can make
 * the catalog change at every listing (a tool unlisted, then listed as pinned again, once a
 * second under the relist pacing), and replacing every idle container at each change would
 * cost a container start, and with preloading ~0.4 s of CPU, for each one, every time.
 */
export const POOL_CATALOG_REVIEW_MIN_INTERVAL_MS = 10_000;

export interface SandboxOptions {
  /** The container engine, through its boundary (container-engine/sandbox-engine.ts). */
  engine: SandboxEngine;
  image: string;
  owner: ContainerOwner;
  /** Idle containers kept when runs are quiet. */
  poolSize?: number;
  /** How far the pool grows under demand and how soon it shrinks back; fixed unless said. */
  poolGrowth?: PoolGrowth;
  deadlineSeconds?: number;
  /** The container runtime, runc unless said; setRuntime changes it. */
  runtime?: SandboxRuntime;
  clock?: Clock;
  /**
   * Warm containers import numpy, pandas and matplotlib while they wait (cold ones never do);
   * setPreload changes it. Off unless said here; the app's setting (sandboxPreload) is on by
   * default. A warm container is handed out only once its imports are done. Refills started
   * while runs outpace the pool skip the imports (WarmPool).
   */
  preload?: boolean;
  /** A warm container not ready by then is replaced (POOL_READY_TIMEOUT_MS unless said). */
  readyTimeoutMs?: number;
  /** How long runs outpacing the pool keep refills from preloading (POOL_LEAN_WINDOW_MS unless said). */
  leanWindowMs?: number;
  /**
   * The current catalog's tools (frozen, freezeTools), or null for none: sent to each warm
   * container as it joins the pool, so a run whose tools are exactly these sends a short start
   * line. Read again for each container; a run with other tools sends its own.
   */
  stagedTools?: (() => readonly SandboxTool[] | null) | undefined;
  /** How often a catalog change may replace idle containers (POOL_CATALOG_REVIEW_MIN_INTERVAL_MS unless said). */
  catalogReviewMinIntervalMs?: number;
  /**
   * Where containers' workspace slots are made: with it (and an engine that mounts this
   * computer's folders), every container, warm or cold, gets an empty slot, and a run that
   * names a workspace finds it at /workspace. Without it, runs cannot have one.
   */
  slots?: SlotRoot | undefined;
}

/**
 * Runs code in fresh, locked-down containers. Owns every container it starts (warm or
 * in use) so that close() leaves none behind, whatever state the runs are in.
 */
export class Sandbox {
  private readonly pool: WarmPool;
  private readonly active = new Map<SandboxContainer, AbortController>();
  private readonly removals = new Set<Promise<void>>();
  private readonly afterAnswer = new RemovalsAfterAnswer();
  private readonly acquiring = new Set<Promise<unknown>>();
  private readonly image: string;
  private closed = false;
  private currentRuntime: SandboxRuntime;
  private preloading: boolean;
  /** When the idle containers were last reviewed for a catalog change (performance.now()). */
  private lastReview = -Infinity;
  private pendingReview: NodeJS.Timeout | null = null;
  /** Opens slots a run shut the host out of; null where the engine cannot mount them. */
  private readonly openSlot: SlotOpener | null;
  deadlineSeconds: number;

  constructor(private readonly options: SandboxOptions) {
    this.image = options.image;
    this.deadlineSeconds = options.deadlineSeconds ?? RUN_LIMITS.defaultDeadlineSeconds;
    this.currentRuntime = options.runtime ?? "runc";
    this.preloading = options.preload === true;
    const size = options.poolSize ?? POOL_LIMITS.defaultSize;
    this.pool = new WarmPool({
      startContainer: (warm, preload) => this.startContainer(warm && preload),
      size,
      growth: options.poolGrowth,
      readyTimeoutMs: options.readyTimeoutMs,
      preload: this.preloading,
      leanWindowMs: options.leanWindowMs,
      onPooled: (container) => this.stage(container),
    });
    this.openSlot = slotOpener(options.engine, this.image, options.owner, () => this.runtime);
    // Slots a killed run shut the host out of are left by the sweep at start: this engine,
    // the one that mounted them, can open them.
    if (options.slots !== undefined && this.openSlot !== null) {
      this.track(options.slots.sweep(this.openSlot).then(() => undefined));
    }
    this.pool.fill();
  }

  private async startContainer(preload: boolean): Promise<SandboxContainer> {
    const { engine, owner, slots } = this.options;
    // A warm container cannot be given a mount once started: each gets its slot now.
    const made = slots !== undefined && engine.mountsHostFolders ? await slots.create() : undefined;
    const open = this.openSlot;
    const slot = made && { ...made, open: open ? () => open(made.dir) : undefined };
    return SandboxContainer.start(
      engine,
      this.image,
      owner,
      this.currentRuntime,
      preload,
      slot && { ...slot, release: () => slots!.release(slot) },
    );
  }

  /** The current catalog's text to stage, or null: none given, or empty (no line for it). */
  private stagedText(): string | null {
    const tools = this.options.stagedTools?.();
    return tools && tools.length > 0 ? toolsJson(tools) : null;
  }

  private stage(container: SandboxContainer): void {
    const text = this.stagedText();
    if (text !== null) container.stage(text);
  }

  /**
   * The catalog changed: idle containers staged with another one are replaced (their refills
   * are staged with this one), and those with none staged get it now. A run is never given a
   * container staged with a catalog other than its own (see run()); this keeps the pool warm
   * for the runs after a change.
   */
  catalogChanged(): void {
    if (this.closed || this.pendingReview !== null) return; // the pending review reads it
    const interval = this.options.catalogReviewMinIntervalMs ?? POOL_CATALOG_REVIEW_MIN_INTERVAL_MS;
    // Paced: a server can change the catalog at every listing, and each review may replace
    // every idle container. Runs meanwhile never get a stale one (claim), only a cold one.
    const wait = this.lastReview + interval - performance.now();
    if (wait > 0) {
      this.pendingReview = setTimeout(() => {
        this.pendingReview = null;
        this.reviewStaged();
      }, wait);
      this.pendingReview.unref();
      return;
    }
    this.reviewStaged();
  }

  private reviewStaged(): void {
    if (this.closed) return;
    this.lastReview = performance.now();
    const text = this.stagedText();
    this.pool.reviewIdle((container) => {
      if (container.staged === null) {
        if (text !== null) container.stage(text);
        return true;
      }
      return container.staged === text;
    });
  }

  get preload(): boolean {
    return this.preloading;
  }

  /** Later warm containers preload (or not): the idle ones made the other way are replaced. */
  setPreload(preload: boolean): void {
    if (preload === this.preloading) return;
    this.preloading = preload;
    this.pool.setPreload(preload);
    if (!this.closed) this.pool.restock();
  }

  get runtime(): SandboxRuntime {
    return this.currentRuntime;
  }

  /** Later runs use this runtime: the warm containers made under the old one are replaced. */
  setRuntime(runtime: SandboxRuntime): void {
    if (runtime === this.currentRuntime) return;
    this.currentRuntime = runtime;
    if (!this.closed) this.pool.restock();
  }

  async run(request: RunRequest, hooks: RunHooks = {}): Promise<RunResult> {
    if (this.closed) throw new Error("the sandbox is shut down");
    const workspace = request.workspace;
    if (workspace !== undefined) {
      const refusal = workspacesRefusal(this.options.engine, this.options.slots !== undefined);
      if (refusal !== null) throw new WorkspaceUnavailable(refusal);
    }
    // A cold start takes a while: close() waits for it, so no container outlives shutdown.
    const container = await this.claim(request);
    hooks.onContainer?.({ runtime: container.runtime });
    const slot = container.slot;
    // A run with a workspace keeps the slot past the container, to keep what it left there.
    const releaseSlot = workspace !== undefined ? container.holdSlot() : () => Promise.resolve();
    // Active from here: close() stops and removes it even while its workspace is being filled.
    const cancel = new AbortController();
    this.active.set(container, cancel);
    if (workspace !== undefined) {
      try {
        if (slot === null) throw new Error("the container has no workspace slot");
        this.options.slots!.open(slot);
        await workspace.fill(slot);
      } catch (error) {
        this.active.delete(container);
        this.track(container.remove().finally(releaseSlot));
        throw error;
      }
    }
    const overSize = new AbortController();
    const watch =
      workspace !== undefined && slot !== null ? watchWorkspace(slot, workspace, overSize) : null;
    const limit = hooks.limit ? AbortSignal.any([hooks.limit, overSize.signal]) : overSize.signal;
    const onAbort = (): void => cancel.abort();
    if (hooks.signal?.aborted || this.closed) cancel.abort();
    hooks.signal?.addEventListener("abort", onAbort, { once: true });
    let keep: Parameters<typeof keepAfterStop>[2] = null;
    let endedItself = false; // the runner ended the run: its container is on its way out
    try {
      const result = await runInContainer(
        container,
        request,
        {
          onCall: hooks.onCall,
          onImage: hooks.onImage,
          onFile: hooks.onFile,
          signal: cancel.signal,
          limit,
          onDeadline: hooks.onDeadline,
        },
        {
          deadlineCeilingSeconds: this.deadlineSeconds,
          clock: this.options.clock,
          workspace: workspace && {
            name: workspace.name,
            deny_exec: denyExecWay(this.options.engine, container.runtime),
          },
        },
      );
      endedItself = result.stopped === null;
      if (workspace === undefined || slot === null) return result;
      // Answered once the code has ended; what it left is kept once the container has stopped.
      const checked = await workspace.check(slot, ranToItsEnd(result));
      keep = checked.keep;
      return withWorkspace(result, workspace, checked.outcome, watch?.over());
    } finally {
      hooks.signal?.removeEventListener("abort", onAbort);
      this.active.delete(container);
      // A container whose runner ended the run is removed once the answer is out: removing it
      // takes the CPU and disk the answer's audit write needs. One the host stopped may still
      // run code, one with a workspace may still write there: removed at once (after its keep).
      const remove = (): Promise<void> =>
        (slot ? keepAfterStop(container, slot, keep, watch) : container.remove()).finally(
          releaseSlot,
        );
      const after =
        endedItself && workspace === undefined && !this.closed ? hooks.removeAfter : undefined;
      this.track(after === undefined ? remove() : this.afterAnswer.remove(after, remove));
    }
  }

  /**
   * A container for this run. One staged with a catalog other than the run's (it changed while
   * the container idled) is removed, never used: the run's code could read the staged one in
   * its process's memory (tools since withdrawn, descriptions since masked), even though the
   * start line's own tools would be the ones it sees in TOOLS.
   */
  private async claim(request: RunRequest): Promise<SandboxContainer> {
    let tools: string | null = null;
    for (;;) {
      const taking = this.pool.take(containerNeed(request.code));
      const guarded = taking.catch(() => undefined);
      this.acquiring.add(guarded);
      let container: SandboxContainer;
      try {
        container = await taking;
      } finally {
        this.acquiring.delete(guarded);
      }
      if (container.staged === null) return container;
      tools ??= toolsJson(request.tools ?? []);
      if (container.staged === tools) return container;
      this.track(container.remove());
    }
  }

  setPoolSize(size: number): void {
    this.pool.resize(size);
  }

  setPoolGrowth(growth: PoolGrowth): void {
    this.pool.setGrowth(growth);
  }

  /** Idle containers the pool aims for now: the floor, or more while runs keep coming. */
  get poolTarget(): number {
    return this.pool.targetSize;
  }

  get idleContainers(): number {
    return this.pool.idle;
  }

  /** The warm pool as the Sandbox page shows it: ready, starting, and how many it aims for. */
  get poolCounts(): { ready: number; starting: number; target: number } {
    const { idle, startingCount, targetSize } = this.pool;
    return { ready: idle, starting: startingCount, target: targetSize };
  }

  /** Waits for the warm containers being started now; how many are ready then. */
  async poolFilled(): Promise<number> {
    await this.pool.settled();
    return this.pool.idle;
  }

  /**
   * Waits until the warm containers being started now are up, not for their preload imports:
   * how many there are then (ready or still importing).
   */
  poolStarted(): Promise<number> {
    return this.pool.started();
  }

  /**
   * Ends every run, removes every container this sandbox started, and waits for the keeps of
   * the runs already answered.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pendingReview !== null) clearTimeout(this.pendingReview);
    this.pendingReview = null;
    for (const cancel of this.active.values()) cancel.abort();
    this.afterAnswer.now();
    // Runs still claiming a container see `closed` once they have it and stop at once.
    await Promise.allSettled([...this.acquiring]);
    await this.pool.drain();
    await Promise.allSettled([...this.active.keys()].map((c) => c.remove()));
    await Promise.allSettled([...this.removals]);
  }

  /** Waits for the keeps and removals started after finished runs (tests and shutdown use it). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.removals]);
  }

  private track(removal: Promise<void>): void {
    const guarded = removal.catch(() => undefined);
    this.removals.add(guarded);
    void guarded.finally(() => this.removals.delete(guarded));
  }
}

/**
 * Removes sandbox containers of this install whose owner is provably gone (a crash or a
 * kill -9 skips close()). Containers of another install, or whose owner may be alive (in
 * another pid namespace, on another host), are left: see ownerGone. With `includeOwn`, this
 * process's own containers go too: after Docker came back from an outage, every one of them
 * is a leftover (the sandbox that started them was given up when the engine went away).
 */
export async function sweepOrphanContainers(
  engine: Pick<SandboxEngine, "listSandboxes" | "container">,
  self: ContainerOwner,
  isAlive: (pid: number) => boolean = pidAlive,
  includeOwn = false,
): Promise<number> {
  const list = await engine.listSandboxes(self.install);
  let removed = 0;
  for (const info of list) {
    const owner = labelledOwner(info.labels);
    if (!(includeOwn && ownedBySelf(owner, self)) && !ownerGone(owner, self, isAlive)) continue;
    await engine
      .container(info.id)
      .remove()
      .then(() => removed++)
      .catch(() => undefined);
  }
  return removed;
}
