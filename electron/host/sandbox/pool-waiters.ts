import type { SandboxContainer } from "./containers/sandbox-container.js";
import type { PoolClock } from "./warm-pool-options.js";

/**
 * What a run's code needs of a container: "preloaded" when it names a library warm containers
 * preload (it would import it itself in a lean one), "lean" when it does not (a preloading
 * container would only hold ~56 MiB more for it).
 */
export type ContainerNeed = "preloaded" | "lean";

/** Which refill still under way a run waits for: one that preloads, one that does not, or either. */
export type RefillKind = "preloaded" | "lean" | "any";

/**
 * A run that found no fitting container ready waits at most this long for a refill already
 * under way, then starts a cold one. A refill is normally ready well before (it started earlier
 * than a cold start would); this only bounds the wait for one that hangs.
 */
export const POOL_CLAIM_WAIT_MS = 5_000;

interface Waiter {
  kind: RefillKind;
  resolve: (container: SandboxContainer | null) => void;
  cancelTimer: () => void;
}

/** The refills under way, by kind, that waiting runs may be handed. */
export interface InFlight {
  lean: number;
  preloaded: number;
}

/** What the pool holds, as a run's claim sees it. */
export interface ClaimView {
  /** Where in the idle list the first preloading container is, and the first lean one (-1: none). */
  preloadedAt: number;
  leanAt: number;
  /** Preloading refills started and importing. */
  importing: number;
  /**
   * Light runs leave the preloading container idle: a run that needed one came lately
   * (POOL_HEAVY_WINDOW_MS) and runs come faster than the pool refills (the take finds it short
   * of its target, or one did within POOL_LEAN_WINDOW_MS). At rest a light run takes it: its
   * replacement preloads and is ready within seconds, and a pool with no lean spare (a floor of
   * 1) would otherwise send every light run to a cold start.
   */
  keepPreloaded: boolean;
  inFlight: InFlight;
}

/**
 * Runs waiting for a refill under way, first come first served. A refill that becomes ready
 * goes to the first run waiting for its kind instead of into the pool. A waiter resolves with
 * null (its run then starts a cold container) when no refill under way is left for it, when it
 * waited POOL_CLAIM_WAIT_MS, or when the pool closes.
 */
export class PoolWaiters {
  private readonly queue: Waiter[] = [];

  constructor(
    private readonly clock: PoolClock,
    private readonly waitMs = POOL_CLAIM_WAIT_MS,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /**
   * Where in the idle list the container a run gets now is; -1: none (it waits, or starts a
   * cold one). Code naming a preloaded library gets a preloading one, else waits for one
   * importing (what it has left to import is less than all of it in a lean one), else a lean
   * one; other code a lean one, else (unless keepPreloaded) a preloading one: so a burst of
   * light runs leaves the preloading container to a heavy run that may follow it. Without a need
   * (the code unknown): a preloading one first.
   */
  pick(need: ContainerNeed | undefined, view: ClaimView): number {
    const { preloadedAt, leanAt } = view;
    if (need === undefined) return preloadedAt !== -1 ? preloadedAt : leanAt;
    if (need === "preloaded") {
      if (preloadedAt !== -1) return preloadedAt;
      return view.importing > 0 && this.backed("preloaded", view.inFlight) ? -1 : leanAt;
    }
    return leanAt !== -1 || view.keepPreloaded ? leanAt : preloadedAt;
  }

  /** Which refill under way a run that got no idle container waits for; null: none is left. */
  kindFor(need: ContainerNeed, view: ClaimView): RefillKind | null {
    const { inFlight } = view;
    // A light run starts a cold one: waiting for a refill under way spreads the burst's wait over
    // more of its runs (bench/pool-burst-trace.ts BENCH_CLAIMS).
    if (need === "lean") return null;
    if (view.importing > 0 && this.backed("preloaded", inFlight)) return "preloaded";
    return this.backed("any", inFlight) ? "any" : null;
  }

  /** Whether a run waiting for `kind` now would have a refill under way of its own. */
  backed(kind: RefillKind, inFlight: InFlight): boolean {
    return this.unbacked({ ...inFlight }, [...this.queue, { kind }]).length === 0;
  }

  wait(kind: RefillKind): Promise<SandboxContainer | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = { kind, resolve, cancelTimer: () => undefined };
      waiter.cancelTimer = this.clock.setTimeout(() => this.settle(waiter, null), this.waitMs);
      this.queue.push(waiter);
    });
  }

  /** Hands a refill just ready to the first run waiting for its kind; false if none is. */
  offer(container: SandboxContainer, preloaded: boolean): boolean {
    const waiter = this.queue.find(
      (w) => w.kind === "any" || (w.kind === "preloaded") === preloaded,
    );
    if (waiter === undefined) return false;
    this.settle(waiter, container);
    return true;
  }

  /** The runs no refill under way is left for (one failed or was dropped) start cold ones. */
  release(inFlight: InFlight): void {
    for (const waiter of this.unbacked({ ...inFlight }, [...this.queue])) this.settle(waiter, null);
  }

  /** Every waiting run starts a cold container. */
  releaseAll(): void {
    for (const waiter of [...this.queue]) this.settle(waiter, null);
  }

  /** The waiters, in order, that the refills under way do not cover (each taken by one). */
  private unbacked<W extends { kind: RefillKind }>(left: InFlight, waiters: W[]): W[] {
    const out: W[] = [];
    for (const waiter of waiters) {
      if (waiter.kind !== "preloaded" && left.lean > 0) left.lean--;
      else if (waiter.kind !== "lean" && left.preloaded > 0) left.preloaded--;
      else out.push(waiter);
    }
    return out;
  }

  private settle(waiter: Waiter, container: SandboxContainer | null): void {
    const at = this.queue.indexOf(waiter);
    if (at === -1) return;
    this.queue.splice(at, 1);
    waiter.cancelTimer();
    waiter.resolve(container);
  }
}
