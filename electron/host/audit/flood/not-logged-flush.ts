/**
 * When the count of entries an EntryWindow left out reaches the log: at the first one left out,
 * then every `everyMs` while more are, and at flush() (the stop). Left for the next entry
 * logged, the count waited in memory, and that entry may never come (a flood, then quiet): a
 * stop or a kill lost the count, and with it the fact that some were left out. A kill now loses
 * at most the last interval's count. The timer never holds the process open.
 */
export class NotLoggedFlush {
  #timer: NodeJS.Timeout | undefined;

  constructor(
    /** The count left out and not yet written, counted from 0 again (EntryWindow.takeNotLogged). */
    private readonly take: () => number,
    /** Writes the entry that carries a count (above 0). */
    private readonly write: (count: number) => void,
    private readonly everyMs: number,
  ) {}

  /** One was left out: written at once if no interval runs, else at its tick. */
  leftOut(): void {
    if (this.#timer !== undefined) return;
    this.writeTaken();
    this.#timer = setInterval(() => {
      // A quiet interval ends the ticking; the next one left out is written at once again.
      if (this.writeTaken()) return;
      this.stopTimer();
    }, this.everyMs);
    this.#timer.unref();
  }

  /** At the stop: the count not yet written, and no timer left. */
  flush(): void {
    this.stopTimer();
    this.writeTaken();
  }

  private stopTimer(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Whether there was a count to write. */
  private writeTaken(): boolean {
    const count = this.take();
    if (count > 0) this.write(count);
    return count > 0;
  }
}
