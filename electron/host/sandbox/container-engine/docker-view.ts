import type { DockerStatusView } from "../../../../shared/api/api-views.js";
import type { RunResult } from "../../../../shared/run-result.js";
import type { DockerStatus } from "./docker-status.js";

/** What a client is told while the engine it was using cannot be reached. */
export function dockerUnreachableMessage(endpoint: string): string {
  return `Docker is not reachable at ${endpoint}; runs resume when it is back.`;
}

/** Why a run is refused while there is no sandbox to run it in. */
export function cannotRunYet(docker: DockerStatus | null): string {
  if (docker === null) return "Code Mode cannot run code: Docker has not been found yet.";
  if (docker.state !== "ready") return `Code Mode cannot run code: ${docker.message}`;
  return "Code Mode cannot run code yet: its sandbox image is not built. Open Code Mode and build it (Sandbox page), or run `codemode image build`.";
}

/** A run's result when the engine went away under it: its error says so, when it has one. */
export function cutOffResult(result: RunResult, endpoint: string): RunResult {
  if (result.error === null) return result;
  const error = `${dockerUnreachableMessage(endpoint)} This run was cut off: ${result.error}`;
  return { ...result, error };
}

/** Docker went away, or came back after going away. */
export type DockerOutageEvent =
  | { phase: "lost"; endpoint: string; reason: string }
  | {
      phase: "back";
      endpoint: string;
      downMs: number;
      sweptContainers: number;
      warmContainers: number;
    };

/**
 * What the UI and clients are shown of the engine: while a lost engine is away that it is
 * unreachable (not "not running": it was there and runs resume when it is back).
 */
export function supervisorDockerView(
  status: DockerStatus | null,
  outage: { endpoint: string } | null,
): DockerStatusView {
  if (outage) {
    return {
      state: "unreachable",
      endpoint: outage.endpoint,
      version: null,
      tried: [outage.endpoint],
      message: dockerUnreachableMessage(outage.endpoint),
    };
  }
  if (status === null) {
    return {
      state: "not-running",
      endpoint: null,
      version: null,
      tried: [],
      message: "Docker has not been checked yet.",
    };
  }
  if (status.state === "ready") {
    return {
      state: "ready",
      endpoint: status.endpoint,
      version: status.version,
      tried: [],
      message: null,
      engine: status.name ?? null,
      kind: status.kind ?? null,
      remote: status.remote ?? false,
      engines: status.engines ?? [],
    };
  }
  return {
    state: status.state,
    endpoint: null,
    version: null,
    tried: status.tried,
    message: status.message,
    engines: status.engines ?? [],
    advice: status.advice ?? [],
  };
}

/** How a run's audit entries name the engine it ran on: its name and where it is. */
export function auditEngineName(view: DockerStatusView): string | undefined {
  if (view.endpoint === null) return undefined;
  return view.engine && view.engine !== view.endpoint
    ? `${view.engine} ${view.endpoint}`
    : view.endpoint;
}
