// What a WarmPool is made with, the clock it shrinks by, and how it waits for a container.
import type { PoolGrowth } from "./pool-target.js";
import type { SandboxContainer } from "./containers/sandbox-container.js";

/**
 * A started warm container whose runner has not said ready by then (its preload imports
 * took too long, or it hangs) is removed and replaced. Preloading took ~7 s on a loaded
 * 2-core machine (bench/sandbox-preload.ts) and ~30 s with the docker tests running beside
 * it; this leaves room for slower still.
 */
export const POOL_READY_TIMEOUT_MS = 120_000;

/**
 * Under pressure (within this long of a take that found the pool short of its target: none
 * ready, or the refills of earlier takes still under way), light runs leave the preloading
 * container to heavy ones (POOL_HEAVY_WINDOW_MS), and refills skip the preload imports
 * even when preloading is on (but one, while none preloads: the next heavy run's): each would
 * cost ~0.4 s of CPU while runs are already waiting for containers (bench/pool-flood-profile.ts),
 * or about to: a burst that starts on a full pool makes its second take find the first one's
 * refill still importing, and the refills it and the next takes start would otherwise all
 * import too (bench/pool-burst.ts, the second burst). Once no take came for this long, the pool
 * rests: the idle containers started that way are replaced by preloading ones, so a rested pool
 * still preloads.
 */
export const POOL_LEAN_WINDOW_MS = 10_000;

/**
 * Of the idle containers kept while quiet, this many stay lean (no preload imports: ~6 MiB
 * idle instead of ~62 MiB) when the floor is above 1; one preloads whatever the floor. The
 * second run of a burst takes such a spare instead of a cold start.
 */
export const POOL_LEAN_SPARES = 1;

/**
 * For this long after a run whose code names a preloaded library, light runs under pressure
 * (POOL_LEAN_WINDOW_MS) leave the preloading container idle and start a cold one, so that the
 * next such run right after a burst finds it (bench/pool-after-burst.ts). At rest they take it:
 * its replacement preloads, and a pool with no lean spare would otherwise start every light run
 * cold. A client that runs no such code keeps the whole pool for its bursts (bench/pool-burst.ts,
 * the first burst).
 */
export const POOL_HEAVY_WINDOW_MS = 10 * 60_000;

/**
 * A run that takes a container from a pool at its target, with no run waiting for a refill,
 * starts its replacement this much later: starting a container costs dockerd, containerd and
 * runc some 100 ms of CPU, which on a machine of few cores slows the short run it was taken for
 * (bench/shim-round-trip.ts, side by side with the pool that refilled at once). The next take,
 * and whoever waits for the pool, start it at once.
 */
export const POOL_REFILL_DELAY_MS = 50;

/** The clock and timer the pool shrinks by (tests give fake ones). */
export interface PoolClock {
  now(): number;
  setTimeout(run: () => void, ms: number): () => void;
}

export const realClock: PoolClock = {
  now: () => performance.now(),
  setTimeout(run, ms) {
    const timer = setTimeout(run, ms);
    // An idle pool waiting to shrink keeps no process alive.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface WarmPoolOptions {
  /**
   * Starts a container: `warm` is true for one that will wait in the pool, false for a cold
   * one taken now; `preload` says whether it imports the heavy libraries while it waits.
   */
  startContainer: (warm: boolean, preload: boolean) => Promise<SandboxContainer>;
  /** Idle containers kept when runs are quiet. */
  size: number;
  /** How far and for how long bursts grow the pool (fixed at `size` unless said). */
  growth?: PoolGrowth | undefined;
  clock?: PoolClock;
  /** A started container that has not said ready by then is removed and replaced. */
  readyTimeoutMs?: number;
  /**
   * Warm containers preload (import the heavy libraries while they wait), except refills started
   * under pressure (see WarmPool). Off unless said; setPreload changes it.
   */
  preload?: boolean;
  /** How long pressure keeps refills lean and how long without a take rests the pool (POOL_LEAN_WINDOW_MS unless said). */
  leanWindowMs?: number;
  /** How long a run waits for a refill under way before it starts a cold one (POOL_CLAIM_WAIT_MS unless said). */
  claimWaitMs?: number;
  /**
   * Called for each container as it joins the pool, ready: the Sandbox sends it the catalog
   * then (SandboxContainer.stage), off any run's path. A throw is ignored.
   */
  onPooled?: (container: SandboxContainer) => void;
}

/** How a started warm container's wait for its ready line ended. */
export type Readiness = "ready" | "failed" | "timeout" | "abandoned";

/** What a warm container's wait for its ready line leaves as the pool's last error. */
export function readinessError(
  ended: Exclude<Readiness, "abandoned">,
  timeoutMs: number,
): Error | null {
  if (ended === "failed") return new Error("a warm container ended before its runner was ready");
  if (ended === "timeout")
    return new Error(`a warm container did not say ready within ${timeoutMs} ms`);
  return null;
}

/** Waits for the container's ready line, at most `timeoutMs`, or until abandoned. */
export async function readiness(
  container: SandboxContainer,
  timeoutMs: number,
  abandon: AbortSignal,
): Promise<Readiness> {
  if (abandon.aborted) return "abandoned";
  let timer: NodeJS.Timeout | undefined;
  let onAbort = (): void => undefined;
  try {
    return await Promise.race([
      container.ready.then((ready): Readiness => (ready ? "ready" : "failed")),
      new Promise<Readiness>((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeoutMs);
      }),
      new Promise<Readiness>((resolve) => {
        onAbort = () => resolve("abandoned");
        abandon.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    abandon.removeEventListener("abort", onAbort);
  }
}
