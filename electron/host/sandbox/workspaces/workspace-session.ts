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
      const onDisk = await readState(place);
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
    const checked: SessionChecked =
      filled === null
        ? { outcome: { report: unchangedReport(state), problem: null }, keep: null }
        : await checkSlot({ place, state, filled, maxBytes, now }, slot, outcome);
    const told =
      notice === undefined
        ? checked.outcome
        : { ...checked.outcome, report: { ...checked.outcome.report, notice } };
    const keep = checked.keep;
    if (keep === null) return { outcome: told, keep: null };
    const endMark = await markKeeping(place.keeping);
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
