// One run's hold on a workspace: its slot filled from the kept version, looked at as the code
// ends (the run is answered then), kept once the container has stopped (workspace-keep.ts), and
// the workspace given back only after that keep. Until then the lock stays taken, so the next
// run of the workspace and the user's edits wait for it, and a mark tells readers to wait too.
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import type { RunWorkspace } from "../../../../shared/run-result.js";
import type { SessionChecked, WorkspaceSessionPort } from "../../core/ports/workspace-port.js";
import type { WorkspaceSlot } from "../../core/ports/run-types.js";
import { fillSlot, type FillMode, type Filled } from "./workspace-commit.js";
import { checkAndKeep, checkSlot, unchangedReport } from "./workspace-keep.js";
import { markKeeping } from "./workspace-lock.js";
import {
  readState,
  versionDir,
  writeState,
  type WorkspacePlace,
  type WorkspaceState,
} from "./workspace-state.js";
import { scanTree } from "./workspace-tree.js";

/** A workspace held by one run, from its fill to its keep. */
export interface WorkspaceSession extends WorkspaceSessionPort {
  /**
   * Checks and keeps at once, for a slot nothing writes to any more (a run played without a
   * container: the tests, the bench's set-up).
   */
  settle(
    slot: WorkspaceSlot,
    outcome: { finished: boolean; privateData: boolean },
  ): Promise<{ report: RunWorkspace; problem: string | null }>;
}

/** Ends a keep's mark that turned out not to be needed (or whose writing failed). */
async function endMarking(marking: Promise<() => Promise<void>> | null): Promise<void> {
  if (marking === null) return;
  const end = await marking.catch(() => null);
  await end?.().catch(() => undefined);
}

/** The session of a run that opened the workspace at `place` (its lock taken, `release`). */
export function workspaceSession(options: {
  place: WorkspacePlace;
  opened: WorkspaceState;
  maxBytes: number;
  mode: FillMode;
  now: () => Date;
  release: () => Promise<void>;
}): WorkspaceSession {
  const { place, opened, maxBytes, mode, now } = options;
  const kept = versionDir(place, opened.version);
  let filled: Filled | null = null;
  /** Settles once the run's keep is done; null while there is none to wait for. */
  let keeping: Promise<void> | null = null;
  let releasing = false;
  let unlocked: Promise<void> | null = null;
  /** The state names when the run opened it (unless a keep wrote a later one), then unlocks. */
  const giveBack = async (): Promise<void> => {
    try {
      const onDisk = readState(place);
      if (onDisk !== null && onDisk.usedAt < opened.usedAt) {
        await writeState(place, { ...onDisk, usedAt: opened.usedAt });
      }
    } finally {
      await options.release();
    }
  };
  const unlock = (): Promise<void> => (unlocked ??= giveBack());

  const check = async (
    slot: WorkspaceSlot,
    outcome: { finished: boolean; privateData: boolean },
  ): Promise<SessionChecked> => {
    let state = opened;
    const notice = opened.notice;
    if (notice !== undefined) {
      // The previous run's keep differed from its answer: this run is told, and no later one.
      const { notice: _told, ...rest } = opened;
      state = rest;
      await writeState(place, state);
    }
    const withNotice = (told: SessionChecked["outcome"]): SessionChecked["outcome"] =>
      notice === undefined ? told : { ...told, report: { ...told.report, notice } };
    if (filled === null) {
      return { outcome: withNotice({ report: unchangedReport(state), problem: null }), keep: null };
    }
    // A run that ended by itself will most likely keep: the mark is written while the slot is
    // scanned rather than after, as it must be on disk before the answer.
    const marking = outcome.finished ? markKeeping(place.keeping) : null;
    // Its failure is thrown once the scan is done: until then it must not go unhandled (Node
    // ends the process on an unhandled rejection).
    marking?.catch(() => undefined);
    let checked: SessionChecked;
    try {
      checked = await checkSlot({ place, state, filled, maxBytes, now }, slot, outcome);
    } catch (error) {
      await endMarking(marking);
      throw error;
    }
    const told = withNotice(checked.outcome);
    const keep = checked.keep;
    if (keep === null || marking === null) {
      await endMarking(marking);
      return { outcome: told, keep: null };
    }
    const endMark = await marking;
    let done: () => void = () => undefined;
    keeping = new Promise<void>((resolve) => (done = resolve));
    return {
      outcome: told,
      keep: async (after, stopped) => {
        try {
          return await keep(after, stopped);
        } finally {
          await endMark().catch(() => undefined);
          // Given back here when release() came first: whoever waits on this keep (shutdown)
          // finds the workspace free once it is done.
          if (releasing) await unlock().catch(() => undefined);
          done();
        }
      },
    };
  };

  return {
    name: opened.name,
    private: opened.private,
    maxBytes,
    fill: async (slot) => {
      const tree = await scanTree(kept, WORKSPACE_LIMITS.maxEntries);
      filled = await fillSlot(kept, tree, slot.workspace, mode);
    },
    check,
    settle: async (slot, outcome) => checkAndKeep(await check(slot, outcome), slot),
    release: async () => {
      releasing = true;
      await keeping;
      await unlock();
    },
  };
}
