import { FIXED_POOL, PoolTarget, type PoolGrowth } from "./pool-target.js";
import type { SandboxContainer } from "./containers/sandbox-container.js";
import {
  readiness,
  realClock,
  type PoolClock,
  type WarmPoolOptions,
  POOL_READY_TIMEOUT_MS,
  POOL_LEAN_WINDOW_MS,
} from "./warm-pool-options.js";

/**
 * Of the idle containers kept while quiet, this many stay lean (no preload imports: ~6 MiB
 * idle instead of ~62 MiB) when the floor is above 1; one preloads whatever the floor. The
 * second run of a burst takes such a spare instead of a cold start.
 */
export const POOL_LEAN_SPARES = 1;

/**
 * Started, idle containers waiting for their start line, so a run skips container
 * start-up. Each is taken once and never returned; taking one starts its replacements in
 * parallel in the background. The number kept grows with demand (PoolTarget) and shrinks
 * back when runs stop. A container that dies while idle is dropped.
 *
 * A container is pooled only once its runner said ready (its preload imports are done): a run
 * that finds none ready takes a cold container at once rather than wait for the imports of
 * one still starting (bench/sandbox-preload.ts measures both ways).
 *
 * Under pressure (within POOL_LEAN_WINDOW_MS of a take that found the pool short of its target:
 * none ready, or the refills of earlier takes still under way), refills skip the preload imports
 * even when preloading is on: each would cost ~0.4 s of CPU while runs are already waiting for
 * containers (bench/pool-flood-profile.ts), or about to: a burst that starts on a full pool makes
 * its second take find the first one's refill still importing, and the refills it and the next
 * takes start would otherwise all import too (bench/pool-burst.ts, the second burst). Once no take
 * came for that long, the pool rests: the idle containers started that way are replaced by
 * preloading ones, so a rested pool still preloads.
 */
export class WarmPool {
  private ready: SandboxContainer[] = [];
  private starting = 0;
  /** Of `starting`, those that preload. */
  private startingPreloaded = 0;
  private closed = false;
  /** Bumped by restock(): a container started before it is removed once ready, not pooled. */
  private generation = 0;
  private readonly inflight = new Set<Promise<void>>();
  /**
   * The starts under way when the target last grew: until they are all done, only a miss grows
   * it again (PoolTarget.taken's `settling`).
   */
  private readonly growthWave = new Set<Promise<void>>();
  /** The container starts under way (their ready lines not included), for started(). */
  private readonly launches = new Set<Promise<unknown>>();
  /** Containers started and waiting for their ready line. */
  private awaitingReady = 0;
  /** Removals of idle containers (resize, restock, a dead one): drain() waits for them too. */
  private readonly removing = new Set<Promise<void>>();
  /** The last error starting a warm container: the pool retries on the next take. */
  lastError: unknown = null;
  private readonly target: PoolTarget;
  private cancelShrink: (() => void) | null = null;
  /** Aborted by restock() and drain(): containers still waiting for ready stop waiting. */
  private abandon = new AbortController();
  private readonly readyTimeoutMs: number;
  private preload: boolean;
  private readonly leanWindowMs: number;
  private readonly onPooled: ((container: SandboxContainer) => void) | undefined;
  /**
   * When a take last found the pool short of its target (none ready, or refills of earlier
   * takes still under way): refills skip preloading for a while.
   */
  private lastPressureAt = -Infinity;
  private lastTakeAt = -Infinity;
  /** Containers started without preloading while preloading was on: replaced once the pool rests. */
  private readonly lean = new Set<SandboxContainer>();
  private cancelRest: (() => void) | null = null;

  private readonly startContainer: WarmPoolOptions["startContainer"];
  private readonly clock: PoolClock;

  constructor(options: WarmPoolOptions) {
    this.startContainer = options.startContainer;
    const clock = (this.clock = options.clock ?? realClock);
    this.target = new PoolTarget(options.size, options.growth ?? FIXED_POOL, () => clock.now());
    this.readyTimeoutMs = options.readyTimeoutMs ?? POOL_READY_TIMEOUT_MS;
    this.preload = options.preload === true;
    this.leanWindowMs = options.leanWindowMs ?? POOL_LEAN_WINDOW_MS;
    this.onPooled = options.onPooled;
  }

  /** A warm container if one is ready, else a cold one started now. */
  async take(): Promise<SandboxContainer> {
    // Refills of earlier takes still under way: runs come faster than the pool refills.
    const short = this.ready.length < this.target.size;
    const warm = this.takeReady();
    const target = this.target.size;
    if (!this.closed) {
      this.target.taken(this.ready.length, warm === undefined, short, this.growthWave.size > 0);
      this.lastTakeAt = this.clock.now();
      if (short || warm === undefined) this.lastPressureAt = this.lastTakeAt;
      this.armShrink();
    }
    if (warm) this.lean.delete(warm);
    this.fill();
    if (this.target.size > target) {
      this.growthWave.clear();
      for (const job of this.inflight) this.growthWave.add(job);
    }
    if (warm) return warm;
    return this.startContainer(false, false);
  }

  /**
   * The next idle container: a preloading one first (the run may import pandas), the lean ones
   * (a floor's lean spare, a burst's refills) after.
   */
  private takeReady(): SandboxContainer | undefined {
    const at = this.ready.findIndex((c) => !this.lean.has(c));
    return this.ready.splice(at === -1 ? 0 : at, 1)[0];
  }

  /**
   * How many idle containers preload (with preloading on, and no pressure): the floor's, but
   * for its lean spares (POOL_LEAN_SPARES), and at least one of a floor that has any.
   */
  private get preloadFloor(): number {
    const floor = this.target.floorSize;
    return Math.max(Math.min(floor, 1), floor - POOL_LEAN_SPARES);
  }

  /** Idle or starting containers that preload. */
  private get preloaded(): number {
    return this.ready.filter((c) => !this.lean.has(c)).length + this.startingPreloaded;
  }

  /** Whether refills started now preload: preloading is on and no take found the pool short lately. */
  get preloadingNow(): boolean {
    return this.preload && this.clock.now() - this.lastPressureAt >= this.leanWindowMs;
  }

  /** Later warm containers preload (or not); restock() replaces those made the other way. */
  setPreload(preload: boolean): void {
    this.preload = preload;
  }

  /** How many idle containers the pool aims for now (grown under demand). */
  get targetSize(): number {
    return this.target.size;
  }

  fill(): void {
    if (this.closed) return;
    while (this.ready.length + this.starting < this.target.size) {
      this.starting++;
      const generation = this.generation;
      const abandon = this.abandon.signal;
      // Only the preloading floor's worth: the floor's lean spares and a grown pool's extra
      // containers stay lean (~6 MiB idle instead of ~62 MiB, and no ~0.4 s of import CPU).
      const preload = this.preloadingNow && this.preloaded < this.preloadFloor;
      if (preload) this.startingPreloaded++;
      const launch = this.startContainer(true, preload);
      this.launches.add(launch);
      const launched = (): void => void this.launches.delete(launch);
      launch.then(launched, launched);
      const job = launch.then(
        async (container) => {
          this.awaitingReady++;
          const ended = await readiness(container, this.readyTimeoutMs, abandon);
          this.awaitingReady--;
          // restock() already stopped counting the containers of an older generation.
          if (generation === this.generation) {
            this.starting--;
            if (preload) this.startingPreloaded--;
          }
          if (ended === "failed") {
            this.lastError = new Error("a warm container ended before its runner was ready");
          } else if (ended === "timeout") {
            this.lastError = new Error(
              `a warm container did not say ready within ${this.readyTimeoutMs} ms`,
            );
          } else if (ended === "ready") this.lastError = null;
          // A container started for a target that has shrunk since is not kept either.
          if (this.closed || generation !== this.generation || ended !== "ready" || this.full()) {
            // Awaited through `inflight`, so drain() returns only once it is gone.
            await container.remove().catch(() => undefined);
            // A slow one is replaced; one that failed is not (a broken image would spin):
            // the next take() refills.
            if (ended === "timeout") this.fill();
            return;
          }
          this.ready.push(container);
          try {
            this.onPooled?.(container);
          } catch {
            // Staging is an optimisation: a run without it sends its catalog at start.
          }
          if (this.preload && !preload) {
            this.lean.add(container);
            this.armRest();
          } else if (this.lean.size > 0) this.armRest(); // the swap's next step, if still rested
          void container.ended.then(() => this.drop(container));
        },
        (error: unknown) => {
          // Not retried in a loop: a broken engine or a missing image would spin.
          if (generation === this.generation) {
            this.starting--;
            if (preload) this.startingPreloaded--;
          }
          this.lastError = error;
        },
      );
      this.inflight.add(job);
      void job.finally(() => {
        this.inflight.delete(job);
        this.growthWave.delete(job);
      });
    }
  }

  /** A new floor (idle containers kept when quiet). */
  resize(size: number): void {
    this.target.setFloor(size);
    this.trim();
    this.fill();
    this.armShrink();
  }

  /** A new growth ceiling and idle time. */
  setGrowth(growth: PoolGrowth): void {
    this.target.setGrowth(growth);
    this.trim();
    this.fill();
    this.armShrink();
  }

  private full(): boolean {
    return this.ready.length >= this.target.size;
  }

  private trim(): void {
    while (this.ready.length > this.target.size) {
      // A lean one goes first: the preloading ones are the floor's (see armRest); but a
      // preloading one past the floor's worth (a floor lowered to 2 or more keeps its lean
      // spare) goes before the spare, ~56 MiB more idle. With preloading off none is lean: the
      // last goes.
      const overPreloaded = this.preload && this.preloaded > this.preloadFloor;
      const at = this.ready.findLastIndex((c) => this.lean.has(c) !== overPreloaded);
      const [extra] = this.ready.splice(at === -1 ? this.ready.length - 1 : at, 1);
      if (extra) {
        this.lean.delete(extra);
        this.discard(extra);
      }
    }
    if (this.lean.size > 0) this.armRest();
  }

  /** While the target is above the floor, a timer checks for idleness once it may be due. */
  private armShrink(): void {
    this.cancelShrink?.();
    this.cancelShrink = null;
    if (this.closed || !this.target.grown) return;
    this.cancelShrink = this.clock.setTimeout(() => {
      this.cancelShrink = null;
      if (this.target.shrinkIfIdle()) this.trim();
      this.armShrink();
    }, this.target.msUntilShrink());
  }

  /**
   * Once no take came for POOL_LEAN_WINDOW_MS, replaces the idle containers started without
   * preloading (under pressure) by preloading ones, one at a time: the next goes only once the last
   * replacement is ready, so a burst that comes back meanwhile still finds all but one idle
   * container ready (replacing them all at once left the pool empty for the seconds the imports
   * take, and such a burst then ran on cold containers). Armed only while there are such
   * containers.
   */
  private armRest(): void {
    if (this.cancelRest || this.closed) return;
    const due = Math.max(0, this.lastTakeAt + this.leanWindowMs - this.clock.now());
    this.cancelRest = this.clock.setTimeout(() => {
      this.cancelRest = null;
      if (this.closed || this.lean.size === 0) return;
      if (this.clock.now() - this.lastTakeAt < this.leanWindowMs) {
        this.armRest();
        return;
      }
      const next = this.ready.find((c) => this.lean.has(c));
      if (!this.preload || next === undefined) {
        this.lean.clear();
        return;
      }
      // Only the floor's worth preloads, but its lean spare (preloadFloor): a grown pool's extra
      // containers are kept for bursts alone, and go when it shrinks. Preloading them would cost
      // each ~0.4 s of CPU (spent just as a returning burst needs it) and ~56 MiB more while it
      // waits to shrink.
      if (this.preloaded >= this.preloadFloor) return;
      this.lean.delete(next);
      this.ready = this.ready.filter((c) => c !== next);
      this.discard(next);
      this.fill();
    }, due);
  }

  /**
   * Replaces every idle container (and those starting) with new ones: after the way containers
   * are made changed (the runtime), no run may get one made the old way.
   */
  restock(): void {
    this.generation++;
    this.abandon.abort();
    this.abandon = new AbortController();
    this.starting = 0;
    this.startingPreloaded = 0;
    const old = this.ready;
    this.ready = [];
    this.lean.clear();
    for (const container of old) this.discard(container);
    this.fill();
  }

  /**
   * Goes over the idle containers: those `keep` says no to are removed and replaced (the
   * refills start now). The Sandbox uses it when the catalog changed, for the containers
   * staged with another one.
   */
  reviewIdle(keep: (container: SandboxContainer) => boolean): void {
    if (this.closed) return;
    const gone = this.ready.filter((c) => !keep(c));
    if (gone.length === 0) return;
    this.ready = this.ready.filter((c) => !gone.includes(c));
    for (const container of gone) {
      this.lean.delete(container);
      this.discard(container);
    }
    this.fill();
  }

  get idle(): number {
    return this.ready.length;
  }

  /** Containers started and not ready yet (still starting, or importing their preloads). */
  get startingCount(): number {
    return this.starting;
  }

  /** Resolves once every container being started now is ready or has failed. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  /**
   * Resolves once every container being started now is up (ready or still importing): how
   * many there are then. Unlike settled(), it does not wait for imports.
   */
  async started(): Promise<number> {
    await Promise.allSettled([...this.launches]);
    return this.ready.length + this.awaitingReady;
  }

  /** Removes every idle container, including ones still starting. */
  async drain(): Promise<void> {
    this.closed = true;
    this.abandon.abort();
    this.cancelShrink?.();
    this.cancelShrink = null;
    this.cancelRest?.();
    this.cancelRest = null;
    await Promise.allSettled([...this.inflight]);
    const idle = this.ready;
    this.ready = [];
    await Promise.allSettled(idle.map((c) => c.remove()));
    // A removal still under way when the app quits would leave its container running.
    await Promise.allSettled([...this.removing]);
  }

  private discard(container: SandboxContainer): void {
    const removal = container.remove().catch(() => undefined);
    this.removing.add(removal);
    void removal.finally(() => this.removing.delete(removal));
  }

  private drop(container: SandboxContainer): void {
    const index = this.ready.indexOf(container);
    if (index === -1) return;
    this.ready.splice(index, 1);
    this.lean.delete(container);
    this.discard(container);
    // No refill here: a container that dies at once would make this spin; the next
    // take() refills.
  }
}
