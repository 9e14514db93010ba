// The one fake clock of the unit tests: time moves only when the test says so, and timers
// fire only then. It fits the pool's clock (`now`, `setTimeout` returning a cancel) and
// anything that only reads `now`.

/** A timer the fake clock holds until time reaches `at`. */
interface FakeTimer {
  at: number;
  run: () => void;
}

/**
 * A clock starting at 0. Set `t` to jump (no timer fires), or `advance(ms)` to move on and
 * fire every timer then due, in the order they were set; a timer set by one that fires
 * waits for the next `advance`. `pending()` counts the timers not yet fired nor
 * cancelled.
 */
export function fakeClock() {
  const timers: FakeTimer[] = [];
  const clock = {
    t: 0,
    now: () => clock.t,
    setTimeout(run: () => void, ms: number) {
      const timer = { at: clock.t + ms, run };
      timers.push(timer);
      return () => {
        const index = timers.indexOf(timer);
        if (index !== -1) timers.splice(index, 1);
      };
    },
    pending: () => timers.length,
    advance(ms: number) {
      clock.t += ms;
      for (const timer of timers.filter((x) => x.at <= clock.t)) {
        const index = timers.indexOf(timer);
        if (index === -1) continue; // cancelled by a timer that fired before it
        timers.splice(index, 1);
        timer.run();
      }
    },
  };
  return clock;
}
