// The size of a run's workspace while its code runs. A bind mount has no size limit of its own,
// so a run could fill the host's disk before its end: the slot is measured on a timer, and a
// run past its workspace's limit is stopped (what it wrote is then not kept). The timer backs
// off for a big tree, so measuring never takes more than a fraction of the host's time.
import { treeBytes } from "./workspace-tree.js";

/** How often a run's workspace is measured at most... */
export const SLOT_WATCH_MIN_INTERVAL_MS = 250;
/** ...and at least this many times the last measure took, so a big tree costs little. */
export const SLOT_WATCH_BACKOFF = 10;

/**
 * Measures `dir` until stopped; calls `onOver` once, with the bytes found, when they pass
 * `maxBytes`. Returns the function that stops it.
 */
export function watchSlotSize(
  dir: string,
  maxBytes: number,
  onOver: (bytes: number) => void,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const measure = async (): Promise<void> => {
    const started = performance.now();
    const bytes = await treeBytes(dir, maxBytes);
    if (stopped) return;
    if (bytes > maxBytes) {
      stopped = true;
      onOver(bytes);
      return;
    }
    const took = performance.now() - started;
    timer = setTimeout(
      () => void measure(),
      Math.max(SLOT_WATCH_MIN_INTERVAL_MS, took * SLOT_WATCH_BACKOFF),
    );
    timer.unref();
  };
  timer = setTimeout(() => void measure(), SLOT_WATCH_MIN_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    if (timer !== null) clearTimeout(timer);
  };
}
