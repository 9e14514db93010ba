import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { Semaphore } from "./semaphore.js";

/** An answer slower than this many times its tool's recent fastest counts as slow. */
export const SERVER_LATENCY_TOLERANCE = 2;

/** How many recent calls of a tool its fastest is taken from. */
export const SERVER_LATENCY_WINDOW = 20;

/** Gives a call's slot back with how long the server took (ms), or undefined when unknown. */
export type SlotDone = (latencyMs?: number) => void;

export interface ServerSlotsOptions {
  /** The most calls at once, whatever the latency (the user's setting). */
  ceiling: number;
  /** Where each burst starts, and the least the slots fall back to; at most `ceiling`. */
  start?: number;
  /** A call slower than this many times its tool's recent fastest call counts as slow. */
  tolerance?: number;
  /** How many recent calls of a tool its fastest call is taken from. */
  window?: number;
}

/**
 * The calls one server may have in flight, all runs together, adapted to how it answers.
 * Each burst starts at `start` slots (16 by default: the fixed cap before adapting came).
 * While calls queue for a slot and the server answers each as fast as the same tool's recent
 * fastest call (within `tolerance`), each such answer adds a slot, up to `ceiling`: a server
 * that is not slowed by the load gets the burst through in a few round trips. Each slow
 * answer takes a slot away again, never below `start`. Once the server has nothing in flight
 * the next burst starts at `start` again, so slots won in one burst are not spent on a server
 * that has changed since. Fastest-per-tool, because one server's tools differ in speed for
 * reasons that have nothing to do with load.
 */
export class ServerSlots {
  readonly #semaphore: Semaphore;
  readonly #start: number;
  readonly #ceiling: number;
  readonly #tolerance: number;
  readonly #window: number;
  readonly #recent = new Map<string, number[]>();

  constructor(options: ServerSlotsOptions) {
    const { ceiling } = options;
    if (!Number.isInteger(ceiling) || ceiling < 1) {
      throw new RangeError("the ceiling must be a positive integer");
    }
    this.#ceiling = ceiling;
    this.#start = Math.min(options.start ?? BRIDGE_LIMITS.serverConcurrencyStart, ceiling);
    this.#tolerance = options.tolerance ?? SERVER_LATENCY_TOLERANCE;
    this.#window = options.window ?? SERVER_LATENCY_WINDOW;
    this.#semaphore = new Semaphore(this.#start);
  }

  /** Slots there are now. */
  get limit(): number {
    return this.#semaphore.limit;
  }

  get inUse(): number {
    return this.#semaphore.inUse;
  }

  /** Resolves with the slot's `done` once one is free; rejects if `signal` aborts first. */
  async acquire(signal: AbortSignal, tool: string): Promise<SlotDone> {
    const release = await this.#semaphore.acquire(signal);
    let done = false;
    return (latencyMs) => {
      if (done) return;
      done = true;
      // Judged before the slot is given back, so a queue still waiting counts as demand.
      if (latencyMs !== undefined) this.#adapt(tool, latencyMs);
      release();
      if (this.#semaphore.inUse === 0 && this.#semaphore.limit !== this.#start) {
        this.#semaphore.setLimit(this.#start);
      }
    };
  }

  #adapt(tool: string, latencyMs: number): void {
    const fastest = this.#note(tool, latencyMs);
    const limit = this.#semaphore.limit;
    if (latencyMs > fastest * this.#tolerance) {
      if (limit > this.#start) this.#semaphore.setLimit(limit - 1);
    } else if (this.#semaphore.waiting > 0 && limit < this.#ceiling) {
      // Only under demand: a trickle of calls never tests more slots, so it earns none.
      this.#semaphore.setLimit(limit + 1);
    }
  }

  /** Records a latency; returns the tool's fastest over its window, this one included. */
  #note(tool: string, latencyMs: number): number {
    let recent = this.#recent.get(tool);
    if (recent === undefined) {
      recent = [];
      this.#recent.set(tool, recent);
    }
    recent.push(latencyMs);
    if (recent.length > this.#window) recent.shift();
    // A tool answering in under a millisecond is judged against 1 ms, not against timer noise.
    return Math.max(1, Math.min(...recent));
  }
}
