// The size of a run's workspace while its code runs. A bind mount has no size limit of its own,
// so a run could fill the host's disk before its end: the slot is measured on a timer, and a
// run past its workspace's limit is stopped (what it wrote is then not kept). The timer backs
// off for a big tree, so measuring never takes more than a fraction of the host's time.
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { treeBytes, type SlotOver } from "./workspace-tree.js";

/** How often a run's workspace is measured at most... */
export const SLOT_WATCH_MIN_INTERVAL_MS = 250;
/** ...and at least this many times the last measure took, so a big tree costs little. */
export const SLOT_WATCH_BACKOFF = 10;

/**
 * How many times one run's slot is opened to the host while it runs (a folder it shut the host
 * out of, as tempfile.mkdtemp's 0700 does where the host is neither root nor the sandbox's
 * user); past it, such a folder stops the run, as what cannot be measured cannot be let grow.
 */
export const SLOT_WATCH_MAX_OPENS = 4;

/**
 * Measures `dir` until stopped; calls `onOver` once, with what it found past its limits, when
 * the bytes pass `maxBytes`, or the entries or a path pass the workspace's own limits (such a
 * tree is never kept), or a folder stays shut to the host after `open` (or without it).
 * Returns the function that stops it.
 */
export function watchSlotSize(
  dir: string,
  maxBytes: number,
  onOver: (over: SlotOver) => void,
  open?: () => Promise<void>,
): () => void {
  let stopped = false;
  let opens = 0;
  let timer: NodeJS.Timeout | null = null;
  const limits = {
    bytes: maxBytes,
    entries: WORKSPACE_LIMITS.maxEntries,
    pathBytes: WORKSPACE_LIMITS.pathMaxChars,
  };
  const measure = async (): Promise<void> => {
    const started = performance.now();
    let found = await treeBytes(dir, limits);
    if (found.over === null && found.shut && open !== undefined && opens < SLOT_WATCH_MAX_OPENS) {
      opens++;
      await open().catch(() => undefined);
      if (stopped) return;
      found = await treeBytes(dir, limits);
    }
    if (stopped) return;
    const over = found.over ?? (found.shut ? "unreadable" : null);
    if (over !== null) {
      stopped = true;
      onOver(over);
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
