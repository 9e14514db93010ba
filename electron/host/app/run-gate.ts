import { RunNotStarted } from "../core/engine/run-not-started.js";

/** A run waiting for a free slot longer than this gets a clear "busy" error. */
export const RUN_QUEUE_TIMEOUT_MS = 60_000;

export class RunRefused extends RunNotStarted {
  override name = "RunRefused";
}

/**
 * Admits runs up to a concurrency cap; the rest wait in order. A run that waits longer
 * than the queue timeout, or arrives while the user paused new runs, is refused with a
 * message the model can relay.
 */
export class RunGate {
  private running = 0;
  private readonly waiting: { admit: () => void; refuse: (error: Error) => void }[] = [];
  paused = false;

  constructor(
    private cap: number,
    private readonly queueTimeoutMs: number = RUN_QUEUE_TIMEOUT_MS,
  ) {}

  setCap(cap: number): void {
    this.cap = cap;
    this.pump();
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async enter(signal?: AbortSignal): Promise<() => void> {
    if (this.paused) {
      throw new RunRefused(
        "Code Mode is paused: the user stopped new runs. Ask them to resume it.",
      );
    }
    // Cancelled before it got here (while the log's health was probed, say): not admitted, not
    // queued, whether or not there is room.
    if (signal?.aborted === true) throw new RunRefused("the run was cancelled while it waited");
    if (this.running < this.cap && this.waiting.length === 0) {
      this.running++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = {
        admit: () => {
          cleanup();
          resolve();
        },
        refuse: (error: Error) => {
          cleanup();
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.remove(entry);
        entry.refuse(
          new RunRefused(
            `Code Mode is busy: ${this.running} runs are running and this one waited ${Math.round(this.queueTimeoutMs / 1000)} s. Try again shortly.`,
          ),
        );
      }, this.queueTimeoutMs);
      const onAbort = (): void => {
        this.remove(entry);
        entry.refuse(new RunRefused("the run was cancelled while it waited"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      this.pump();
    };
  }

  private pump(): void {
    while (this.running < this.cap && this.waiting.length > 0) {
      const next = this.waiting.shift();
      if (!next) break;
      this.running++;
      next.admit();
    }
  }

  private remove(entry: { admit: () => void; refuse: (error: Error) => void }): void {
    const index = this.waiting.indexOf(entry);
    if (index !== -1) this.waiting.splice(index, 1);
  }
}
