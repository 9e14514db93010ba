import { POOL_LEAN_SPARES } from "./warm-pool-options.js";

/**
 * How many idle containers preload (with preloading on, and no pressure): the floor's, but for
 * its lean spares (POOL_LEAN_SPARES), and at least one of a floor that has any.
 */
export function preloadFloor(floor: number): number {
  return Math.max(Math.min(floor, 1), floor - POOL_LEAN_SPARES);
}

/** What the pool's rest timer does when it fires. */
export type RestStep = "rearm" | "forget" | "keep" | "swap";

/**
 * Once no take came for POOL_LEAN_WINDOW_MS, the pool replaces the idle containers started
 * without preloading (under pressure) by preloading ones, one at a time: the next goes only once
 * the last replacement is ready, so a burst that comes back meanwhile still finds all but one
 * idle container ready (replacing them all at once left the pool empty for the seconds the
 * imports take, and such a burst then ran on cold containers). Only the floor's worth preloads,
 * but its lean spare (preloadFloor): a grown pool's extra containers are kept for bursts alone,
 * and go when it shrinks; preloading them would cost each ~0.4 s of CPU (spent just as a
 * returning burst needs it) and ~56 MiB more while it waits to shrink.
 *
 * "rearm": a take came since, wait again; "forget": preloading is off, or no lean one is idle,
 * nothing to swap; "keep": the floor's worth preloads already; "swap": replace the next one.
 */
export function restStep(state: {
  quietMs: number;
  windowMs: number;
  preload: boolean;
  leanIdle: boolean;
  preloaded: number;
  preloadFloor: number;
}): RestStep {
  if (state.quietMs < state.windowMs) return "rearm";
  if (!state.preload || !state.leanIdle) return "forget";
  return state.preloaded >= state.preloadFloor ? "keep" : "swap";
}

/**
 * Whether a refill starting now preloads. Only the preloading floor's worth: the floor's lean
 * spares and a grown pool's extra containers stay lean (~6 MiB idle instead of ~62 MiB, and no
 * ~0.4 s of import CPU). Under pressure too, after a heavy run, one preloads while none is idle
 * or starting: the next heavy run gets it, or waits for what it has left to import.
 */
export function refillPreloads(state: {
  preload: boolean;
  preloaded: number;
  preloadFloor: number;
  /** No take found the pool short lately. */
  rested: boolean;
  /** A run whose code names a preloaded library came lately. */
  heavyLately: boolean;
}): boolean {
  const heavy = state.heavyLately && state.preloaded === 0;
  return state.preload && state.preloaded < state.preloadFloor && (state.rested || heavy);
}
