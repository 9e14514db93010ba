// A run with a workspace, around the run itself (sandbox.ts): the taken container's slot is
// opened and filled, its size watched while the code runs, and once the container is gone its
// state kept whole or not at all; the run's result says what became of the workspace.
import { SANDBOX_ENDED_ERROR, type RunResult } from "../../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";
import type { RunWorkspaceRequest, WorkspaceSlot } from "../../core/ports/run-types.js";
import type { SandboxEngine } from "../container-engine/sandbox-engine.js";
import type { StartMessage } from "../runner/runner-messages.js";
import { watchSlotSize } from "./slot-watch.js";
import { bytesText } from "./workspace-store.js";

/** A run named a workspace where there can be none: the message says why and what to do. */
export class WorkspaceUnavailable extends RunNotStarted {
  override name = "WorkspaceUnavailable";
}

/** Why runs on `engine` can have no workspace; null when they can. */
export function workspacesRefusal(
  engine: Pick<SandboxEngine, "mountsHostFolders" | "name" | "endpoint">,
  slotsGiven: boolean,
): string | null {
  if (!slotsGiven) {
    return "workspaces are kept by the Code Mode app and `codemode serve`; this run has no place for one. Run without a workspace.";
  }
  if (!engine.mountsHostFolders) {
    return `workspaces need a container engine on this computer: ${engine.name} (${engine.endpoint}) is remote, and its containers cannot mount this computer's folders. Run without a workspace, or choose a local engine on Code Mode's Sandbox page.`;
  }
  return null;
}

/**
 * How the runner is told execution beneath the slot is denied: Podman mounts it noexec; under
 * runc the runner asks the kernel (Landlock); gVisor has neither (docs/workspaces.md).
 */
export function denyExecWay(
  engine: Pick<SandboxEngine, "product">,
  runtime: SandboxRuntime,
): NonNullable<StartMessage["workspace"]>["deny_exec"] {
  if (engine.product === "Podman") return "mount";
  return runtime === "runc" ? "landlock" : "none";
}

/** Whether the code ran to its end (it may have raised): only then is what it left kept. */
export function ranToItsEnd(result: RunResult): boolean {
  return (
    result.stopped === null &&
    (result.exit_code === 0 || result.exit_code === 1) &&
    !(result.error ?? "").startsWith(SANDBOX_ENDED_ERROR)
  );
}

/** Watches the slot's size while the code runs; `stop` aborts the run past the limit. */
export function watchWorkspace(
  slot: WorkspaceSlot,
  workspace: RunWorkspaceRequest,
  stop: AbortController,
): () => void {
  return watchSlotSize(slot.workspace, workspace.maxBytes, () => stop.abort("workspace_limit"));
}

/** The result with the workspace's outcome: its report, and the reason it failed if it did. */
export function withWorkspace(
  result: RunResult,
  workspace: RunWorkspaceRequest,
  outcome: Awaited<ReturnType<RunWorkspaceRequest["settle"]>>,
): RunResult {
  let error = result.error;
  if (result.stopped === "workspace_limit") {
    error = `the run was stopped: what it wrote in the workspace "${workspace.name}" went over its limit of ${bytesText(workspace.maxBytes)} (the "Workspace size" setting on Code Mode's Sandbox page): nothing this run wrote there was kept, and it holds what it held before the run.`;
  } else if (outcome.problem !== null) {
    error = error === null ? outcome.problem : `${error}\n${outcome.problem}`;
  }
  return { ...result, error, workspace: outcome.report };
}
