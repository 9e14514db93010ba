import { FIXED_POOL, PoolTarget, type PoolGrowth } from "./pool-target.js";
import type { SandboxContainer } from "./containers/sandbox-container.js";
import { preloadFloor, refillPreloads, restStep } from "./lean-rest.js";
import { NOT_NEEDED, PoolLaunches } from "./pool-launches.js";
import { PoolWaiters, type ClaimView, type ContainerNeed, type InFlight } from "./pool-waiters.js";
import {
  readiness,
  realClock,
  type PoolClock,
  type WarmPoolOptions,
  POOL_READY_TIMEOUT_MS,
  POOL_LEAN_WINDOW_MS,
  POOL_HEAVY_WINDOW_MS,
  readinessError,
} from "./warm-pool-options.js";

export { POOL_LEAN_SPARES } from "./warm-pool-options.js";

/**
 * Started, idle containers waiting for their start line, so a run skips container start-up.
 * Each is taken once and never returned; taking one starts its replacements in parallel in the
 * background (from a pool at its target, a moment later: POOL_REFILL_DELAY_MS). The number kept
 * grows with demand (PoolTarget) and shrinks when runs stop. A container that dies idle is dropped.
 *
 * A container is pooled, or handed to a run waiting for it (PoolWaiters), only once its runner
 * said ready (its preload imports are done). Under pressure refills skip the preload imports,
 * and a rested pool swaps them for preloading ones (POOL_LEAN_WINDOW_MS).
 */
export class WarmPool {
  private ready: SandboxContainer[] = [];
  private starting = 0;
  /** Of `starting`, those that preload, and of these those started and importing. */
  private startingPreloaded = 0;
  private importing = 0;
  private closed = false;
  /** Bumped by restock(): a container started before it is removed once ready, not pooled. */
  private generation = 0;
  private readonly inflight = new Set<Promise<void>>();
  /** The starts under way when the target last grew (PoolTarget.taken's `settling`). */
  private readonly growthWave = new Set<Promise<void>>();
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
  /** When a take last found the pool short of its target (POOL_LEAN_WINDOW_MS, claimView). */
  private lastPressureAt = -Infinity;
  private lastTakeAt = -Infinity;
  private lastHeavyAt = -Infinity; // a run whose code names a preloaded library
  /** Containers started without preloading while preloading was on: replaced once the pool rests. */
  private readonly lean = new Set<SandboxContainer>();
  private cancelRest: (() => void) | null = null;
  private readonly launches: PoolLaunches;
  private readonly startContainer: WarmPoolOptions["startContainer"];
  private readonly clock: PoolClock;
  /** Runs that found no fitting container ready, waiting for a refill under way. */
  private readonly waiters: PoolWaiters;

  constructor(options: WarmPoolOptions) {
    this.startContainer = options.startContainer;
    const clock = (this.clock = options.clock ?? realClock);
    this.target = new PoolTarget(options.size, options.growth ?? FIXED_POOL, () => clock.now());
    this.readyTimeoutMs = options.readyTimeoutMs ?? POOL_READY_TIMEOUT_MS;
    this.preload = options.preload === true;
    this.leanWindowMs = options.leanWindowMs ?? POOL_LEAN_WINDOW_MS;
    this.onPooled = options.onPooled;
    this.waiters = new PoolWaiters(clock, options.claimWaitMs);
    this.launches = new PoolLaunches(options.startContainer, clock);
  }

  /**
   * A warm container if one fitting `need` is ready, else (a heavy run) the first fitting refill
   * under way to become ready (it started before a cold one would), else a cold one started now.
   * Without `need` (the run's code unknown): any ready one, a preloading one first, else cold.
   */
  async take(need?: ContainerNeed): Promise<SandboxContainer> {
    // Refills of earlier takes still under way: runs come faster than the pool refills.
    const short = this.ready.length < this.target.size;
    const warm = this.takeReady(need, short);
    const target = this.target.size;
    if (!this.closed) {
      this.target.taken(this.ready.length, warm === undefined, short, this.growthWave.size > 0);
      this.lastTakeAt = this.clock.now();
      if (need === "preloaded") this.lastHeavyAt = this.lastTakeAt;
      // Not any miss: light runs that left the preloading container would keep each other cold.
      if (short) this.lastPressureAt = this.lastTakeAt;
      this.armShrink();
    }
    if (warm) this.lean.delete(warm);
    // Put off only while no run waits for a refill: a waiting run's must not wait longer.
    const offTheWay = warm !== undefined && !short && this.target.size === target;
    this.fill(offTheWay && this.waiters.size === 0);
    if (this.target.size > target) {
      this.growthWave.clear();
      for (const job of this.inflight) this.growthWave.add(job);
    }
    if (warm) return warm;
    const kind =
      need === undefined || this.closed ? null : this.waiters.kindFor(need, this.claimView(short));
    if (kind === null) return this.startContainer(false, false);
    const waiting = this.waiters.wait(kind);
    // One more refill starts for it, as many containers under way as with a cold start: the run
    // gets whichever fitting one is ready first, the other joins the pool.
    this.fill();
    return (await waiting) ?? this.startContainer(false, false);
  }

  /** Takes the idle container a run gets now (PoolWaiters.pick), if any; `short`: see take. */
  private takeReady(need: ContainerNeed | undefined, short: boolean): SandboxContainer | undefined {
    const at = this.waiters.pick(need, this.claimView(short));
    return at === -1 ? undefined : this.ready.splice(at, 1)[0];
  }

  private claimView(short: boolean): ClaimView {
    const now = this.clock.now();
    const burst = short || now - this.lastPressureAt < this.leanWindowMs;
    return {
      preloadedAt: this.preload ? this.ready.findIndex((c) => !this.lean.has(c)) : -1,
      leanAt: this.ready.findIndex((c) => !this.preload || this.lean.has(c)),
      importing: this.importing,
      keepPreloaded: burst && now - this.lastHeavyAt < POOL_HEAVY_WINDOW_MS,
      inFlight: this.inFlight(),
    };
  }

  private inFlight(): InFlight {
    return { lean: this.starting - this.startingPreloaded, preloaded: this.startingPreloaded };
  }

  private get preloadFloor(): number {
    return preloadFloor(this.target.floorSize);
  }

  /** Idle or starting containers that preload. */
  private get preloaded(): number {
    return this.ready.filter((c) => !this.lean.has(c)).length + this.startingPreloaded;
  }

  /** Later warm containers preload (or not); restock() replaces those made the other way. */
  setPreload(preload: boolean): void {
    this.preload = preload;
  }

  /** How many idle containers the pool aims for now. */
  get targetSize(): number {
    return this.target.size;
  }

  /** Starts what the pool is short of; `later`: off the way of the run that just took one. */
  fill(later = false): void {
    if (!later) this.launches.now();
    if (this.closed) return;
    // A waiting run counts too: the start a cold one would have been (see take).
    while (this.ready.length + this.starting < this.target.size + this.waiters.size) {
      this.starting++;
      const generation = this.generation;
      const abandon = this.abandon.signal;
      const preload = refillPreloads({
        preload: this.preload,
        preloaded: this.preloaded,
        preloadFloor: this.preloadFloor,
        rested: this.clock.now() - this.lastPressureAt >= this.leanWindowMs,
        heavyLately: this.clock.now() - this.lastHeavyAt < this.leanWindowMs,
      });
      if (preload) this.startingPreloaded++;
      // By then the pool may have closed, restocked, or shrunk (counting this one as starting).
      const needed = (): boolean =>
        !this.closed &&
        generation === this.generation &&
        this.ready.length + this.starting <= this.target.size + this.waiters.size;
      const launch = this.launches.start(preload, later ? needed : undefined);
      // restock() already stopped counting the containers of an older generation.
      const uncount = (importing: number): void => {
        if (generation !== this.generation) return;
        this.starting--;
        if (preload) this.startingPreloaded--;
        this.importing -= importing;
      };
      const job = launch.then(
        async (container) => {
          this.awaitingReady++;
          const importing = preload && generation === this.generation ? 1 : 0;
          this.importing += importing;
          const ended = await readiness(container, this.readyTimeoutMs, abandon);
          this.awaitingReady--;
          uncount(importing);
          if (ended !== "abandoned") this.lastError = readinessError(ended, this.readyTimeoutMs);
          const fresh = !this.closed && generation === this.generation && ended === "ready";
          if (fresh && this.waiters.offer(container, preload)) {
            this.fill(); // its replacement
            return;
          }
          // Not kept either: one started for a target that has shrunk since (no run waits).
          if (!fresh || this.full()) {
            this.waiters.release(this.inFlight()); // a run waiting for it starts a cold one
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
          uncount(0);
          if (error !== NOT_NEEDED) this.lastError = error;
          this.waiters.release(this.inFlight());
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
    this.retarget();
  }

  /** A new growth ceiling and idle time. */
  setGrowth(growth: PoolGrowth): void {
    this.target.setGrowth(growth);
    this.retarget();
  }

  private retarget(): void {
    this.trim();
    this.fill();
    this.armShrink();
  }

  private full(): boolean {
    return this.ready.length >= this.target.size;
  }

  private trim(): void {
    while (this.ready.length > this.target.size) {
      // A lean one goes first: the preloading ones are the floor's (see restStep); but a
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

  /** While there are lean idle containers, a timer swaps them once the pool rests (restStep). */
  private armRest(): void {
    if (this.cancelRest || this.closed) return;
    const due = Math.max(0, this.lastTakeAt + this.leanWindowMs - this.clock.now());
    this.cancelRest = this.clock.setTimeout(() => {
      this.cancelRest = null;
      if (this.closed || this.lean.size === 0) return;
      const next = this.ready.find((c) => this.lean.has(c));
      const step = restStep({
        ...{ quietMs: this.clock.now() - this.lastTakeAt, windowMs: this.leanWindowMs },
        ...{ preload: this.preload, leanIdle: next !== undefined, preloaded: this.preloaded },
        preloadFloor: this.preloadFloor,
      });
      if (step === "rearm") this.armRest();
      else if (step === "forget") this.lean.clear();
      else if (step === "swap" && next !== undefined) {
        this.lean.delete(next);
        this.ready = this.ready.filter((c) => c !== next);
        this.discard(next);
        this.fill();
      }
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
    this.importing = 0;
    const old = this.ready;
    this.ready = [];
    this.lean.clear();
    for (const container of old) this.discard(container);
    this.fill();
    // Runs waiting for a refill made the old way wait for a new one, or start cold.
    this.waiters.release(this.inFlight());
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
    this.launches.now(); // one who waits for the pool wants it now
    await Promise.allSettled([...this.inflight]);
  }

  /** Once every container being started now is up (ready or importing): how many there are. */
  async started(): Promise<number> {
    await this.launches.started();
    return this.ready.length + this.awaitingReady;
  }

  /** Removes every idle container, including ones still starting. */
  async drain(): Promise<void> {
    this.closed = true;
    this.waiters.releaseAll();
    this.abandon.abort();
    this.cancelShrink?.();
    this.cancelShrink = null;
    this.cancelRest?.();
    this.cancelRest = null;
    this.launches.now(); // each is told it is not needed
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
    // No refill here: one that dies at once would spin; the next take() refills.
  }
}
