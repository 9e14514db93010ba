/**
 * Runs jobs one at a time, in call order, each starting once the one before has settled
 * (whether it succeeded or failed). A failed job rejects its own promise and never the queue.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(job);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
