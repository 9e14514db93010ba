/**
 * The longest a finished run's container waits for the run's answer to go out before it is
 * removed (killed if still running). The code shares the runner's process, so it can send a
 * `done` line itself and go on running: this bounds how long it runs past its run's end.
 */
export const REMOVAL_AFTER_ANSWER_MAX_MS = 1_000;

/**
 * Removals of finished runs' containers held until each run's answer has gone out, so that
 * the engine's work of removing one does not slow the answer (bench/warm-start-trace.ts).
 * now() lets every one go at once: a sandbox shutting down does not wait for answers.
 */
export class RemovalsAfterAnswer {
  private readonly held = new Set<() => void>();

  constructor(private readonly maxWaitMs = REMOVAL_AFTER_ANSWER_MAX_MS) {}

  /** Runs `remove` once `after` settles, at the latest after maxWaitMs or at now(). */
  remove(after: Promise<void>, remove: () => Promise<void>): Promise<void> {
    let go = (): void => undefined;
    const due = new Promise<void>((resolve) => (go = resolve));
    const timer = setTimeout(go, this.maxWaitMs);
    this.held.add(go);
    void after.then(go, go);
    return due.then(() => {
      clearTimeout(timer);
      this.held.delete(go);
      return remove();
    });
  }

  /** Every held removal starts now. */
  now(): void {
    for (const go of this.held) go();
  }
}
