type AnyListener = (...args: unknown[]) => void;

/**
 * Typed listeners for a class's events. Listeners run in the order they subscribed, on a copy
 * of the set (one may unsubscribe itself); one that throws is reported and does not stop the
 * others, nor the emitter's own work (a state machine, a replace half way).
 */
/** `Events`: event name -> listener signature, e.g. `{ status: (info: Info) => void }`. */
export class Emitter<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  readonly #listeners = new Map<keyof Events, Set<AnyListener>>();

  constructor(
    private readonly onListenerError: (event: keyof Events, error: unknown) => void = () =>
      undefined,
  ) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof Events>(event: K, listener: Events[K]): () => void {
    let set = this.#listeners.get(event);
    if (!set) {
      set = new Set();
      this.#listeners.set(event, set);
    }
    const added = listener as unknown as AnyListener;
    set.add(added);
    return () => {
      set.delete(added);
    };
  }

  emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    const listeners = this.#listeners.get(event);
    // Some events come with every tool call (each audit entry) and often nobody follows them.
    if (listeners === undefined || listeners.size === 0) return;
    for (const listener of [...listeners]) {
      try {
        listener(...args);
      } catch (error) {
        this.onListenerError(event, error);
      }
    }
  }

  /** Drops every listener (the emitter's owner is closing). */
  clear(): void {
    this.#listeners.clear();
  }
}
