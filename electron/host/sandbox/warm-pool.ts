import type { SandboxContainer } from "./sandbox-container.js";

/**
 * Started, idle containers waiting for their start line, so a run skips container
 * start-up. Each is taken once and never returned; taking one starts a replacement in
 * the background. A container that dies while idle is dropped.
 */
export class WarmPool {
  private ready: SandboxContainer[] = [];
  private starting = 0;
  private closed = false;
  /** Bumped by restock(): a container started before it is removed once ready, not pooled. */
  private generation = 0;
  private readonly inflight = new Set<Promise<void>>();
  /** Removals of idle containers (resize, restock, a dead one): drain() waits for them too. */
  private readonly removing = new Set<Promise<void>>();
  /** The last error starting a warm container: the pool retries on the next take. */
  lastError: unknown = null;

  constructor(
    /** `warm` is true for a container that will wait in the pool, false for a cold one taken now. */
    private readonly startContainer: (warm: boolean) => Promise<SandboxContainer>,
    private size: number,
  ) {}

  /** A warm container if one is ready, else a cold one started now. */
  async take(): Promise<SandboxContainer> {
    const warm = this.ready.shift();
    this.fill();
    if (warm) return warm;
    return this.startContainer(false);
  }

  fill(): void {
    if (this.closed) return;
    while (this.ready.length + this.starting < this.size) {
      this.starting++;
      const generation = this.generation;
      const job = this.startContainer(true).then(
        (container) => {
          // restock() already stopped counting the containers of an older generation.
          if (generation === this.generation) this.starting--;
          this.lastError = null;
          if (this.closed || generation !== this.generation) {
            // Awaited through `inflight`, so drain() returns only once it is gone.
            return container.remove().catch(() => undefined);
          }
          this.ready.push(container);
          void container.ended.then(() => this.drop(container));
        },
        (error: unknown) => {
          // Not retried in a loop: a broken engine or a missing image would spin.
          if (generation === this.generation) this.starting--;
          this.lastError = error;
        },
      );
      this.inflight.add(job);
      void job.finally(() => this.inflight.delete(job));
    }
  }

  resize(size: number): void {
    this.size = size;
    while (this.ready.length > size) {
      const extra = this.ready.pop();
      if (extra) this.discard(extra);
    }
    this.fill();
  }

  /**
   * Replaces every idle container (and those starting) with new ones: after the way containers
   * are made changed (the runtime), no run may get one made the old way.
   */
  restock(): void {
    this.generation++;
    this.starting = 0;
    const old = this.ready;
    this.ready = [];
    for (const container of old) this.discard(container);
    this.fill();
  }

  get idle(): number {
    return this.ready.length;
  }

  /** Resolves once every container being started now is ready or has failed. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  /** Removes every idle container, including ones still starting. */
  async drain(): Promise<void> {
    this.closed = true;
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
    this.discard(container);
    // No refill here: a container that dies at once would make this spin; the next
    // take() refills.
  }
}
