// A run's workspace and attached files, as the engine handles them around the sandbox's run:
// the workspace held (and the client made private when it holds private data), handed to the
// sandbox, and the attached files kept with their links.
import type { RunResult } from "../../../../shared/run-result.js";
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

/** The sandbox's view of the held workspace: kept marked private if the client is private then. */
export function sandboxWorkspace(
  session: WorkspaceSessionPort,
  taint: TaintRegistry,
  client: string,
): RunWorkspaceRequest {
  return {
    name: session.name,
    maxBytes: session.maxBytes,
    fill: (slot) => session.fill(slot),
    settle: (slot, finished) =>
      session.settle(slot, { finished, privateData: taint.isTainted(client) }),
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
  for (const file of files) kept.push(await keeper.keep(owner, file));
  return { ...result, files: kept };
}
