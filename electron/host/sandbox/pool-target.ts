import { POOL_LIMITS } from "../../../shared/limits.js";

/** A take that finds the pool empty in a burst multiplies its target by this (to its ceiling). */
export const POOL_GROWTH_FACTOR = 2;

/**
 * Only a take that finds the pool empty within this long after the previous take grows it:
 * an empty pool with no run before is still filling (start, runtime switch), not a burst.
 */
export const POOL_BURST_WINDOW_MS = 10_000;

/** How far the warm pool may grow under demand, and how soon it shrinks back. */
export interface PoolGrowth {
  /** The most idle containers it grows to (never below the floor). */
  maxSize: number;
  /** A grown pool with no take for this long halves its target. */
  idleMs: number;
}

/** A pool that never grows: the floor is its size. */
export const FIXED_POOL: PoolGrowth = { maxSize: 0, idleMs: POOL_LIMITS.defaultIdleSeconds * 1000 };

/**
 * The growth the settings ask for: up to the pool's own maximum, and never past the
 * concurrent-runs limit (no more runs can hold a container at once).
 */
export function poolGrowthFor(settings: {
  warmPoolMaxSize: number;
  warmPoolIdleSeconds: number;
  maxConcurrentRuns: number;
}): PoolGrowth {
  return {
    maxSize: Math.min(settings.warmPoolMaxSize, settings.maxConcurrentRuns),
    idleMs: settings.warmPoolIdleSeconds * 1000,
  };
}

/**
 * How many idle containers the warm pool aims to hold. Pure: the pool tells it about takes
 * and asks it, with a clock, whether it is time to shrink. A take that finds the pool empty
 * right after another take multiplies the target (runs are coming faster than the refills keep up with); a pool with
 * no take for the idle time halves it, down to the floor, so a burst's containers (memory)
 * are not held for ever.
 */
export class PoolTarget {
  private target: number;
  private lastTakeAt: number;
  private tookAny = false;

  constructor(
    private floor: number,
    private growth: PoolGrowth,
    private readonly now: () => number,
  ) {
    this.target = floor;
    this.lastTakeAt = now();
  }

  get size(): number {
    return this.target;
  }

  /** Idle containers kept when quiet. */
  get floorSize(): number {
    return this.floor;
  }

  get ceiling(): number {
    return Math.max(this.floor, this.growth.maxSize);
  }

  get idleMs(): number {
    return this.growth.idleMs;
  }

  /** Whether a shrink may come: the target is above the floor. */
  get grown(): boolean {
    return this.target > this.floor;
  }

  /**
   * A run took a container: `missed` when none was idle (the run waits for a cold one),
   * `short` when fewer than the target were idle before it (earlier takes' refills still under
   * way), and `idleLeft` are still idle after it. Runs spaced out enough for the refill never
   * miss nor find it short, so they never grow the pool; a run that does right after another
   * grows it (with a floor of 2, the second run of a burst takes the floor's second container
   * and grows the pool then, a run earlier than a miss would); once grown, a take that leaves
   * it under half full grows it again, before the next run has to miss. While `settling` (the
   * containers started for the last growth are not all up yet) only a miss grows it: they are
   * not idle yet, so a take meanwhile finds the pool short or under half full without having
   * outrun it, and a client running alone every 2 s on containers ready in 3 s doubled the pool
   * at every run up to its ceiling.
   */
  taken(idleLeft: number, missed: boolean, short = missed, settling = false): void {
    const now = this.now();
    // A miss with no take shortly before is no burst: the pool was still filling (at start,
    // after a runtime switch) or a refill failed.
    const burst = this.tookAny && now - this.lastTakeAt <= POOL_BURST_WINDOW_MS;
    this.lastTakeAt = now;
    this.tookAny = true;
    const underHalf = !settling && this.grown && idleLeft * POOL_GROWTH_FACTOR < this.target;
    // Short counts at the floor only: a grown pool's refills are under way at nearly every take.
    const outrun = missed || (short && !settling && !this.grown);
    if ((outrun && burst) || underHalf) {
      this.target = Math.min(
        this.ceiling,
        Math.max(this.target + 1, this.target * POOL_GROWTH_FACTOR),
      );
    }
  }

  /** Halves a grown target when no take came for the idle time; true if it shrank. */
  shrinkIfIdle(): boolean {
    if (!this.grown || this.now() - this.lastTakeAt < this.growth.idleMs) return false;
    this.target = Math.max(this.floor, Math.floor(this.target / POOL_GROWTH_FACTOR));
    // The next halving waits a whole idle time again.
    this.lastTakeAt = this.now();
    return true;
  }

  /** How long from now until shrinkIfIdle may shrink. */
  msUntilShrink(): number {
    return Math.max(0, this.lastTakeAt + this.growth.idleMs - this.now());
  }

  setFloor(floor: number): void {
    this.floor = floor;
    this.clamp();
  }

  setGrowth(growth: PoolGrowth): void {
    this.growth = growth;
    this.clamp();
  }

  private clamp(): void {
    this.target = Math.min(this.ceiling, Math.max(this.floor, this.target));
  }
}
