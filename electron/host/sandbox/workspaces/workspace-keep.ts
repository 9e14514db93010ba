// A run's workspace once its code has ended. The run is answered with what its slot holds then
// (checkSlot: scanned under the same limits as a keep, nothing built); what it left is kept only
// once its container has stopped and nothing can write there any more (the keep checkSlot hands
// back: scanned again, built whole into a new version, or nothing of the run kept). A keep that
// finds otherwise than the answer said (the code, or a thread or process it left, wrote after the
// run's end) keeps what it finds if that is within the limits, else nothing, and says so: to the
// audit log, and in the state, for the next run that opens the workspace.
import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import type { RunWorkspace } from "../../../../shared/run-result.js";
import type { SessionChecked, WorkspaceLate } from "../../core/ports/workspace-port.js";
import type { WorkspaceSlot } from "../../core/ports/run-types.js";
import { buildPlanned, planFromSlot, type Filled, type SlotPlan } from "./workspace-commit.js";
import { shutOut, withSlotOpened } from "./slot-opener.js";
import {
  versionDir,
  writeState,
  type WorkspacePlace,
  type WorkspaceState,
} from "./workspace-state.js";
import { bytesText } from "../../util/bytes-text.js";
import { scanTree, TreeTooLarge, type Tree } from "./workspace-tree.js";

/** What a run's keep works on: the workspace as the run opened it, and what filled its slot. */
export interface KeepContext {
  place: WorkspacePlace;
  /** The state as the run opened it (and as it stays on disk while the run holds it). */
  state: WorkspaceState;
  filled: Filled;
  maxBytes: number;
  now: () => Date;
}

/** The slot as scanned: its tree and the version it would make, or why it may not be kept. */
type SlotScan = { tree: Tree; plan: SlotPlan } | { refusal: string };

/** What the workspace holds as opened: the report of a run of which nothing was kept. */
export function unchangedReport(state: WorkspaceState): RunWorkspace {
  return {
    name: state.name,
    kept: false,
    filesChanged: 0,
    bytesChanged: 0,
    files: state.files,
    bytes: state.bytes,
    private: state.private,
  };
}

/** The report of a run whose slot is kept as `plan` says. */
function plannedReport(state: WorkspaceState, plan: SlotPlan, privateData: boolean): RunWorkspace {
  if (plan.unchanged) return { ...unchangedReport(state), kept: true };
  const { files, bytes, filesChanged, bytesChanged } = plan;
  const marked = state.private || privateData;
  return {
    name: state.name,
    kept: true,
    filesChanged,
    bytesChanged,
    files,
    bytes,
    private: marked,
  };
}

/**
 * Scans the slot under a workspace's limits (entries, depth, size) and plans its version. A run
 * can shut the host out of what it made (its permissions): the slot is opened to the host then,
 * and walked again; a refusal never names a path of the host's.
 */
async function scanSlot(ctx: KeepContext, slot: WorkspaceSlot): Promise<SlotScan> {
  const name = ctx.state.name;
  let tree;
  try {
    tree = await withSlotOpened(slot.dir, slot.open, () =>
      scanTree(slot.workspace, WORKSPACE_LIMITS.maxEntries),
    );
  } catch (error) {
    if (error instanceof TreeTooLarge)
      return { refusal: `the workspace "${name}" would hold ${error.message}` };
    if (shutOut(error)) return { refusal: cannotRead(name) };
    throw error;
  }
  if (tree.bytes > ctx.maxBytes) {
    return {
      refusal: `the workspace "${name}" would hold ${bytesText(tree.bytes)}, over its limit of ${bytesText(ctx.maxBytes)} (the "Workspace size" setting on Code Mode's Sandbox page)`,
    };
  }
  const plan = planFromSlot(
    slot.workspace,
    tree,
    versionDir(ctx.place, ctx.state.version),
    ctx.filled,
  );
  return { tree, plan };
}

function cannotRead(name: string): string {
  return `the run left a file in the workspace "${name}" that Code Mode cannot read (its permissions were changed)`;
}

/** Whether two scans of a slot found the same files and folders, unchanged. */
function sameTree(a: Tree, b: Tree): boolean {
  if (a.entries.length !== b.entries.length) return false;
  return a.entries.every((entry, i) => {
    const other = b.entries[i]!;
    return (
      entry.rel === other.rel &&
      entry.kind === other.kind &&
      entry.bytes === other.bytes &&
      entry.inode === other.inode &&
      entry.mtimeMs === other.mtimeMs
    );
  });
}

/**
 * Looks at the slot as the run's code ends: the outcome the run is answered with, and the keep
 * to do once its container has stopped. `privateData` (the client's state now) marks what is
 * kept, whenever that is.
 */
export async function checkSlot(
  ctx: KeepContext,
  slot: WorkspaceSlot,
  outcome: { finished: boolean; privateData: boolean },
): Promise<SessionChecked> {
  const unchanged = unchangedReport(ctx.state);
  if (!outcome.finished) return { outcome: { report: unchanged, problem: null }, keep: null };
  const first = await scanSlot(ctx, slot);
  if ("refusal" in first) {
    const problem = `${first.refusal}: nothing this run wrote there was kept, and it holds what it held before the run.`;
    return { outcome: { report: unchanged, problem }, keep: null };
  }
  return {
    outcome: { report: plannedReport(ctx.state, first.plan, outcome.privateData), problem: null },
    keep: (after, stopped) => keepAfterStop(ctx, after, stopped, first.tree, outcome.privateData),
  };
}

/**
 * Keeps what the slot holds now that the container has stopped: as answered when it is what
 * the check found, else what it holds within the limits (whole), or nothing. Resolves to what
 * became of the workspace when that is not what the run was told, else null.
 */
async function keepAfterStop(
  ctx: KeepContext,
  slot: WorkspaceSlot,
  stopped: boolean,
  answered: Tree,
  privateData: boolean,
): Promise<WorkspaceLate | null> {
  const name = ctx.state.name;
  const nothingKept = `nothing of that run was kept, and it holds what it held before that run`;
  const dropped = async (notice: string): Promise<WorkspaceLate> => {
    // The old version stays; the state says why, for the next run. A state that cannot be
    // written leaves the old one, which names the same version.
    await writeState(ctx.place, { ...ctx.state, notice }).catch(() => undefined);
    return { kept: false, report: unchangedReport(ctx.state), notice };
  };
  if (!stopped) {
    return dropped(
      `the previous run's container could not be stopped, so what that run wrote to the workspace "${name}" could not be kept: ${nothingKept}.`,
    );
  }
  let late: string | null = null;
  try {
    const scan = await scanSlot(ctx, slot);
    if ("refusal" in scan) {
      return await dropped(
        `the previous run's code wrote to the workspace "${name}" after that run ended, and ${scan.refusal}: ${nothingKept}.`,
      );
    }
    const report = plannedReport(ctx.state, scan.plan, privateData);
    if (!sameTree(answered, scan.tree)) {
      late = `the previous run's code wrote to the workspace "${name}" after that run ended: what it held then was kept, not what that run's result said (${report.filesChanged} files changed, ${bytesText(report.bytesChanged)}); it holds ${report.files} files (${bytesText(report.bytes)}) now.`;
    }
    await commit(ctx, slot, scan.plan, report, late);
    return late === null ? null : { kept: true, report, notice: late };
  } catch (error) {
    // What the host failed at is named by its code only: its message names host paths.
    const code = (error as NodeJS.ErrnoException | null)?.code;
    const why = shutOut(error)
      ? cannotRead(name)
      : `what the previous run left in the workspace "${name}" could not be kept (${code ?? "an error of the host"})`;
    return dropped(`${why}: ${nothingKept}.`);
  }
}

/**
 * Builds the version `plan` describes aside, makes it the kept one (rename, then the state
 * naming it, written atomically: a crash leaves the old or the new), and removes the old one.
 */
async function commit(
  ctx: KeepContext,
  slot: WorkspaceSlot,
  plan: SlotPlan,
  report: RunWorkspace,
  notice: string | null,
): Promise<void> {
  const { place, state } = ctx;
  const told = notice === null ? {} : { notice };
  if (plan.unchanged) {
    if (notice !== null) await writeState(place, { ...state, ...told });
    return;
  }
  const building = path.join(place.dir, `.building-${randomBytes(6).toString("hex")}`);
  try {
    await withSlotOpened(slot.dir, slot.open, async () => {
      await rm(building, { recursive: true, force: true });
      return buildPlanned(plan, building);
    });
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  const next: WorkspaceState = {
    ...state,
    version: state.version + 1,
    private: report.private,
    files: report.files,
    bytes: report.bytes,
    usedAt: ctx.now().toISOString(),
    ...told,
  };
  await rename(building, versionDir(place, next.version));
  await writeState(place, next);
  // Past this point the new version is kept: an old one left behind goes at the next hold.
  await rm(versionDir(place, state.version), { recursive: true, force: true }).catch(
    () => undefined,
  );
}

/**
 * Checks and keeps at once, for a slot nothing writes to any more (no container: the CLI's
 * and the tests' side of a run): the outcome as the keep found it.
 */
export async function checkAndKeep(
  checked: SessionChecked,
  slot: WorkspaceSlot,
): Promise<{ report: RunWorkspace; problem: string | null }> {
  const late = checked.keep === null ? null : await checked.keep(slot, true);
  if (late === null) return checked.outcome;
  return { report: late.report, problem: late.kept ? null : late.notice };
}
