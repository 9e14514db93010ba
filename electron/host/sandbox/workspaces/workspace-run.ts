// A run with a workspace, around the run itself (sandbox.ts): the taken container's slot is
// opened and filled, its size watched while the code runs, and looked at as the code ends; the
// run's result says what became of the workspace. What it left is kept once the container has
// stopped, after the answer (keep-after-stop.ts).
import { WORKSPACE_LIMITS } from "../../../../shared/limits.js";
import { SANDBOX_ENDED_ERROR, type RunResult } from "../../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { RunNotStarted } from "../../core/engine/run-not-started.js";
import type {
  RunWorkspaceRequest,
  WorkspaceOutcome,
  WorkspaceSlot,
} from "../../core/ports/run-types.js";
import type { SandboxEngine } from "../container-engine/sandbox-engine.js";
import type { StartMessage } from "../runner/runner-messages.js";
import { watchSlotSize } from "./slot-watch.js";
import type { SlotOver } from "./workspace-tree.js";
import { bytesText } from "../../util/bytes-text.js";

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
 * runc the runner asks the kernel (Landlock); gVisor has no Landlock and Docker's API cannot
 * mark a bind mount noexec, so there the runner's seccomp filter keeps every file from being
 * made executable (docs/security.md).
 */
export function denyExecWay(
  engine: Pick<SandboxEngine, "product">,
  runtime: SandboxRuntime,
): NonNullable<StartMessage["workspace"]>["deny_exec"] {
  if (engine.product === "Podman") return "mount";
  return runtime === "runc" ? "landlock" : "filter";
}

/** Whether the code ran to its end (it may have raised): only then is what it left kept. */
export function ranToItsEnd(result: RunResult): boolean {
  return (
    result.stopped === null &&
    (result.exit_code === 0 || result.exit_code === 1) &&
    !(result.error ?? "").startsWith(SANDBOX_ENDED_ERROR)
  );
}

/**
 * A run's slot watched: `stop` ends the watch; `over` says what the run was stopped for; `past`
 * is aborted once the slot is past its limits (also after the answer: keep-after-stop.ts).
 */
export interface WorkspaceWatch {
  stop: () => void;
  over: () => SlotOver | null;
  past: AbortSignal;
}

/**
 * Watches the slot while the code runs, and after, until stopped; `stop` aborts the run past
 * the size limit, or once it holds more entries or a deeper path than a workspace may (such a
 * tree is never kept).
 */
export function watchWorkspace(
  slot: WorkspaceSlot,
  workspace: RunWorkspaceRequest,
  stop: AbortController,
): WorkspaceWatch {
  let found: SlotOver | null = null;
  const end = watchSlotSize(
    slot.workspace,
    workspace.maxBytes,
    (over) => {
      found = over;
      stop.abort("workspace_limit");
    },
    slot.open,
  );
  return { stop: end, over: () => found, past: stop.signal };
}

/** The result with the workspace's outcome: its report, and the reason it failed if it did. */
export function withWorkspace(
  result: RunResult,
  workspace: RunWorkspaceRequest,
  outcome: WorkspaceOutcome,
  found: SlotOver | null = null,
): RunResult {
  let error = result.error;
  if (result.stopped === "workspace_limit") {
    const over =
      found === "path"
        ? `held a path longer than ${WORKSPACE_LIMITS.pathMaxChars} characters`
        : found === "unreadable"
          ? "held a folder it shut Code Mode out of (its permissions), so its size could not be measured"
          : found === "entries"
            ? `held more than ${WORKSPACE_LIMITS.maxEntries} files and folders`
            : `went over its limit of ${bytesText(workspace.maxBytes)} (the "Workspace size" setting on Code Mode's Sandbox page)`;
    error = `the run was stopped: what it wrote in the workspace "${workspace.name}" ${over}: nothing this run wrote there was kept, and it holds what it held before the run.`;
  } else if (outcome.problem !== null) {
    error = error === null ? outcome.problem : `${error}\n${outcome.problem}`;
  }
  return { ...result, error, workspace: outcome.report };
}
