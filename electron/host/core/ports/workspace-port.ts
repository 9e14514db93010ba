// What a run asks of the workspaces and of the attached files' keeper, as the core states it:
// the sandbox layer's WorkspaceStore and AttachmentStore implement these.
import type { RunFile } from "../../../../shared/run-result.js";
import type { RunFileData, WorkspaceOutcome, WorkspaceSlot } from "./run-types.js";

/** A client's workspace held for one run, from the fill of its slot to the keeping of it. */
export interface WorkspaceSessionPort {
  readonly name: string;
  /** It holds data a run read from a private tool: the run is treated as having read it too. */
  readonly private: boolean;
  readonly maxBytes: number;
  fill(slot: WorkspaceSlot): Promise<void>;
  settle(
    slot: WorkspaceSlot,
    outcome: { finished: boolean; privateData: boolean },
  ): Promise<WorkspaceOutcome>;
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
