// The warm containers a WarmPool is starting: each start made now, or put off for a moment
// (POOL_REFILL_DELAY_MS) and made when the timer fires, or sooner when the pool is needed at once.
import type { SandboxContainer } from "./containers/sandbox-container.js";
import { POOL_REFILL_DELAY_MS, type WarmPoolOptions, type PoolClock } from "./warm-pool-options.js";

/** Why a start put off was not made: the pool closed, restocked or shrank meanwhile. */
export const NOT_NEEDED = new Error("the pool no longer needs this container");

export class PoolLaunches {
  /** The starts under way (their ready lines not included). */
  private readonly underWay = new Set<Promise<unknown>>();
  private delayed: (() => void)[] = [];
  private cancel: (() => void) | null = null;

  constructor(
    private readonly startContainer: WarmPoolOptions["startContainer"],
    private readonly clock: PoolClock,
  ) {}

  /**
   * Starts a warm container now, or, given `stillNeeded`, after the delay unless it says no by
   * then (the promise rejects with NOT_NEEDED).
   */
  start(preload: boolean, stillNeeded?: () => boolean): Promise<SandboxContainer> {
    const launch =
      stillNeeded === undefined
        ? this.startContainer(true, preload)
        : new Promise<SandboxContainer>((resolve, reject) => {
            this.delayed.push(() => {
              if (!stillNeeded()) return reject(NOT_NEEDED);
              // A start that throws at once must not keep the others put off from starting.
              try {
                this.startContainer(true, preload).then(resolve, reject);
              } catch (error) {
                reject(error instanceof Error ? error : new Error(String(error)));
              }
            });
            this.cancel ??= this.clock.setTimeout(() => this.now(), POOL_REFILL_DELAY_MS);
          });
    this.underWay.add(launch);
    const done = (): void => void this.underWay.delete(launch);
    launch.then(done, done);
    return launch;
  }

  /** Makes every start put off now. */
  now(): void {
    this.cancel?.();
    this.cancel = null;
    const starts = this.delayed;
    this.delayed = [];
    for (const start of starts) start();
  }

  /** Once every start under way (those put off made now) has succeeded or failed. */
  async started(): Promise<void> {
    this.now();
    await Promise.allSettled([...this.underWay]);
  }
}
