// What a WarmPool is made with, the clock it shrinks by, and how it waits for a container.
import type { PoolGrowth } from "./pool-target.js";
import type { SandboxContainer } from "./containers/sandbox-container.js";

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
  /** How long pressure keeps refills lean and how long without a take rests the pool (POOL_LIMITS.leanWindowMs unless said). */
  leanWindowMs?: number;
  /**
   * Called for each container as it joins the pool, ready: the Sandbox sends it the catalog
   * then (SandboxContainer.stage), off any run's path. A throw is ignored.
   */
  onPooled?: (container: SandboxContainer) => void;
}

/** How a started warm container's wait for its ready line ended. */
export type Readiness = "ready" | "failed" | "timeout" | "abandoned";

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
