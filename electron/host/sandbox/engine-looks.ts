// The looks for the container engine: one at a time per engine choice, and whether the chosen
// engine has been looked for yet. The app takes clients before a slow engine answers, and looks
// for a newly chosen engine in the background, so a run may come before the look is done: it
// waits for that look rather than being refused for a sandbox that is about to exist.
import type { DockerStatusView } from "../../../shared/api/api-views.js";
import { waitAtMost } from "../util/wait-at-most.js";

/**
 * How long a run waits, at most, for the chosen engine's first look (a mute socket takes
 * DOCKER_VERSION_TIMEOUT_MS, 5 s; then the leftover sweep and the image check).
 */
export const FIRST_LOOK_RUN_WAIT_MS = 10_000;

/** The first look for the chosen engine: settled once all its steps are done. */
interface FirstLook {
  readonly since: number;
  readonly done: Promise<void>;
  settled: boolean;
  settle(): void;
}

function firstLook(): FirstLook {
  let resolve = (): void => undefined;
  const look: FirstLook = {
    since: performance.now(),
    done: new Promise<void>((r) => (resolve = r)),
    settled: false,
    settle: () => {
      look.settled = true;
      resolve();
    },
  };
  return look;
}

export class EngineLooks {
  /** The look on its way, and the engine choice it looks for. */
  #current: { engine: string; view: Promise<DockerStatusView> } | null = null;
  /** Null before any look was asked for: runs then do not wait. */
  #first: FirstLook | null = null;

  /** `chosen` gives the engine chosen now: a look for one chosen before settles nothing. */
  constructor(private readonly chosen: () => string) {}

  /**
   * Joins the look for `engine` on its way, or starts one with `look`. One look at a time per
   * choice: while Docker is starting, polls and clicks would otherwise pile up.
   */
  join(
    engine: string,
    look: (engine: string) => Promise<DockerStatusView>,
  ): Promise<DockerStatusView> {
    if (this.#current?.engine === engine) return this.#current.view;
    this.#first ??= firstLook();
    const view: Promise<DockerStatusView> = look(engine).finally(() => {
      if (this.#current?.view === view) this.#current = null;
      if (engine === this.chosen()) this.#first?.settle();
    });
    this.#current = { engine, view };
    return view;
  }

  /** Another engine was chosen: runs wait for its first look from now on. */
  choose(): void {
    // A first look still pending keeps its start: the wait stays bounded from there.
    if (this.#first?.settled !== false) this.#first = firstLook();
  }

  /**
   * Resolves once the chosen engine's first look is done, FIRST_LOOK_RUN_WAIT_MS after it began,
   * or when `signal` aborts, whichever comes first.
   */
  async settled(signal?: AbortSignal): Promise<void> {
    const first = this.#first;
    if (!first || first.settled) return;
    const left = FIRST_LOOK_RUN_WAIT_MS - (performance.now() - first.since);
    await waitAtMost(first.done, left, signal);
  }

  /** Quitting: no run waits for a look any more. */
  close(): void {
    this.#first?.settle();
  }
}
