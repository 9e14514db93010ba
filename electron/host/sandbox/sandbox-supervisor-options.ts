// What a SandboxSupervisor is made with, and the error a run gets when the supervisor has no sandbox.
import type { DockerStatusView } from "../../../shared/api/api-views.js";
import type { SandboxRuntime } from "../../../shared/settings.js";
import type { DockerStatus } from "./container-engine/docker-status.js";
import { RunNotStarted } from "../core/engine/run-not-started.js";
import type { DockerOutageEvent } from "./container-engine/docker-view.js";
import type { BaseImageSources, BuildReport } from "./sandbox-image-build.js";
import type { BuildEvent, ContextFile } from "./image.js";
import type { ContainerOwner } from "./containers/container-spec.js";
import type { PoolGrowth } from "./pool-target.js";
import type { SandboxTool } from "../core/ports/run-types.js";
import type { SlotRoot } from "./workspaces/workspace-slots.js";

/** A run could not start because the sandbox is not there: the message says what to do. */
export class SandboxUnavailable extends RunNotStarted {
  override name = "SandboxUnavailable";
}

export interface SandboxSupervisorOptions {
  /** Finds the engine: the one `engine` names (a name or URL), or any when it is "". */
  findDocker: (engine?: string) => Promise<DockerStatus>;
  /** The engine the user chose; settings change it through setEngine. */
  engine?: string;
  files: ContextFile[];
  owner: ContainerOwner;
  /** Warm containers to keep; settings change it through setPoolSize. */
  poolSize: number;
  /** How far the pool grows under demand; settings change it through setPoolGrowth. */
  poolGrowth?: PoolGrowth;
  /** A run's default deadline; settings change it through setDeadlineSeconds. */
  deadlineSeconds: number;
  /** The container runtime (runc or gVisor's runsc); settings change it through setRuntime. */
  runtime?: SandboxRuntime;
  /** Warm containers preload the heavy libraries; settings change it through setPreload. */
  preload?: boolean;
  /** The current catalog's tools, staged in each warm container (SandboxOptions.stagedTools). */
  stagedTools?: () => readonly SandboxTool[] | null;
  onDockerChange?: (view: DockerStatusView) => void;
  onOutage?: (event: DockerOutageEvent) => void;
  onBuildEvent?: (event: BuildEvent) => void;
  /** Where warm and cold containers get their workspace slots (SandboxOptions.slots). */
  slots?: SlotRoot;
  /** Where a build looks for a missing base image (the other engines found; tests give none). */
  otherEngines?: BaseImageSources;
  onBuildFinished?: (result: BuildReport) => void;
}
