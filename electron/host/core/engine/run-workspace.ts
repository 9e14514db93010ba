// A run's workspace and attached files, as the engine handles them around the sandbox's run:
// the workspace held (and the client made private when it holds private data), handed to the
// sandbox, and the attached files kept with their links.
import type { RunResult, RunWorkspace } from "../../../../shared/run-result.js";
import type { BridgeEventSink } from "../bridge/bridge-events.js";
import type { TaintRegistry } from "../bridge/taint.js";
import type { RunFileData, RunWorkspaceRequest } from "../ports/run-types.js";
import type {
  AttachmentPort,
  WorkspacePort,
  WorkspaceSessionPort,
} from "../ports/workspace-port.js";
import { RunNotStarted } from "./run-not-started.js";

/**
 * Holds the run's workspace, if it names one. One holding private data makes the run (and
 * the client, as a private call would) private from its start, whatever state it came from.
 */
export async function openRunWorkspace(
  deps: { workspaces?: WorkspacePort | undefined; taint: TaintRegistry; events: BridgeEventSink },
  name: string | undefined,
  run: { client: string; runId: string },
): Promise<WorkspaceSessionPort | null> {
  const client = run.client;
  if (name === undefined) return null;
  if (deps.workspaces === undefined) {
    throw new RunNotStarted(
      "workspaces are kept by the Code Mode app and `codemode serve`; this run has no place for one. Run without a workspace.",
    );
  }
  const session = await deps.workspaces.open(client, name);
  if (session.private) {
    const record = deps.taint.taint(client, {
      server: "workspace",
      tool: session.name,
      pyName: session.name,
      workspace: session.name,
    });
    // On the record as a private call's taint is: the client may hold private data from now on.
    if (record !== undefined) {
      deps.events.emit({
        kind: "taint",
        runId: run.runId,
        client,
        server: "workspace",
        tool: session.name,
        serverTool: session.name,
        workspace: session.name,
        at: record.at,
      });
    }
  }
  return session;
}

/** What became of a run's workspace when its keep differed from its result (for the log). */
export interface WorkspaceKeepDiffered {
  workspace: string;
  kept: boolean;
  reason: string;
  /** What the run's result said. */
  answered: RunWorkspace;
  /** What the workspace holds now. */
  now: RunWorkspace;
}

/**
 * The sandbox's view of the held workspace. What the run left is marked private if the client
 * is private as the code ends (`privateData` is read then, not at the keep: the client's state
 * may be cleared in between); `onDiffered` hears of a keep that found otherwise than the answer.
 */
export function sandboxWorkspace(
  session: WorkspaceSessionPort,
  privateData: () => boolean,
  onDiffered: (event: WorkspaceKeepDiffered) => void = () => undefined,
): RunWorkspaceRequest {
  return {
    name: session.name,
    maxBytes: session.maxBytes,
    fill: (slot) => session.fill(slot),
    check: async (slot, finished) => {
      const checked = await session.check(slot, { finished, privateData: privateData() });
      const keep = checked.keep;
      if (keep === null) return checked;
      return {
        outcome: checked.outcome,
        keep: async (after, stopped) => {
          const late = await keep(after, stopped);
          if (late === null) return;
          const { kept, report: now, notice: reason } = late;
          onDiffered({
            workspace: session.name,
            kept,
            reason,
            answered: checked.outcome.report,
            now,
          });
        },
      };
    },
  };
}

/** The result with the files the run attached, each kept and given its link. */
export async function withAttachedFiles(
  result: RunResult,
  files: readonly RunFileData[],
  keeper: AttachmentPort | undefined,
  owner: { client: string; runId: string },
): Promise<RunResult> {
  if (files.length === 0 || keeper === undefined) return result;
  const kept = [];
  let stderr = result.stderr;
  for (const file of files) {
    try {
      kept.push(await keeper.keep(owner, file));
    } catch (error) {
      // Its code (ENOSPC), not its message: that names the host's own paths.
      const code = (error as { code?: unknown } | null)?.code;
      const why = typeof code === "string" ? code : "it could not be stored";
      stderr += `attach: ${file.name} was not kept (${why}), so it is not attached.\n`;
    }
  }
  return { ...result, stderr, files: kept };
}
