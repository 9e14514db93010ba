import {
  findEngine,
  type FindEngineOptions,
  type FoundEngine,
  type MissingEngine,
} from "./find-engine.js";

/** The engine in use (container-engine/find-engine.ts says how it is chosen), or why none. */
export type DockerStatus = FoundEngine | MissingEngine;

/**
 * Finds a container engine that answers. Says which places were looked at and what to do,
 * because "cannot connect" alone leaves a non-developer stuck.
 */
export function findDocker(options: FindEngineOptions = {}): Promise<DockerStatus> {
  return findEngine(options);
}
