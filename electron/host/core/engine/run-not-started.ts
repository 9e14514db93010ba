/**
 * A run that could not start for a reason the model should relay to the user (busy,
 * paused, no Docker, no image): its message says what to do, and it is safe to show.
 */
export class RunNotStarted extends Error {
  override name = "RunNotStarted";
}
