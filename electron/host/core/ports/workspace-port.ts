// What a run asks of the workspaces and of the attached files' keeper, as the core states it:
// the sandbox layer's WorkspaceStore and AttachmentStore implement these.
import type { RunFile, RunWorkspace } from "../../../../shared/run-result.js";
import type { RunFileData, WorkspaceOutcome, WorkspaceSlot } from "./run-types.js";

/**
 * A run's keep that found otherwise than the run's result said (its code, a thread or a
 * process it left, wrote to the workspace after the run ended; or the keep failed): what
 * became of the workspace.
 */
export interface WorkspaceLate {
  /** What the slot held once the container stopped was kept whole; false: nothing of the run. */
  kept: boolean;
  /** What the workspace holds now. */
  report: RunWorkspace;
  /** Why, as the next run that opens the workspace is told. */
  notice: string;
}

/** What a run left in its workspace as its code ended, and the keep still to do. */
export interface SessionChecked {
  outcome: WorkspaceOutcome;
  /**
   * Keeps what the slot holds once the container has stopped (see WorkspaceChecked); resolves
   * to what became of the workspace when it is not what `outcome` said, else null.
   */
  keep: ((slot: WorkspaceSlot, stopped: boolean) => Promise<WorkspaceLate | null>) | null;
}

/**
 * A client's workspace held for one run, from the fill of its slot to the keeping of it; held
 * until release() is called and the run's keep (if any) is done.
 */
export interface WorkspaceSessionPort {
  readonly name: string;
  /** It holds data a run read from a private tool: the run is treated as having read it too. */
  readonly private: boolean;
  readonly maxBytes: number;
  fill(slot: WorkspaceSlot): Promise<void>;
  /**
   * Looks at the slot as the run's code ended. `privateData` is the client's state at this
   * moment, and is what marks the workspace when the keep comes later.
   */
  check(
    slot: WorkspaceSlot,
    outcome: { finished: boolean; privateData: boolean },
  ): Promise<SessionChecked>;
  /** Gives the workspace back once the run's keep is done (at once when there is none). */
  release(): Promise<void>;
}

export interface WorkspacePort {
  /**
   * Holds `client`'s workspace `name` for a run, making it if it is new. Rejects with a
   * RunNotStarted whose message says why (a bad name, too many workspaces, held elsewhere).
   */
  open(client: string, name: string): Promise<WorkspaceSessionPort>;
}

/** Keeps the files runs attach, for their client to read back (resources/read) and the user. */
export interface AttachmentPort {
  keep(owner: { client: string; runId: string }, file: RunFileData): Promise<RunFile>;
}
