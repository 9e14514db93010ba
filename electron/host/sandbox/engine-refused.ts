// The error a run gets when the container engine refuses to make or start its container: the
// run ends at once with the engine's own words (an engine error must never leave a run, or the
// process that asked for it, waiting).
import { RunNotStarted } from "../core/engine/run-not-started.js";

/** The engine's message is cut to this many characters: it names ids, paths and runtimes. */
export const ENGINE_MESSAGE_MAX_CHARS = 600;

/** The engine's own message of a failed API call (dockerode puts the body in `json`). */
export function engineMessage(error: unknown): string {
  let text = error instanceof Error ? error.message : String(error);
  const json = (error as { json?: unknown } | null)?.json;
  if (typeof json === "object" && json !== null && "message" in json) {
    const message = (json as { message?: unknown }).message;
    if (typeof message === "string" && message !== "") text = message;
  }
  // dockerode's "(HTTP code 409) unexpected - " says nothing a person can use.
  const dash = text.startsWith("(HTTP code ") ? text.indexOf(" - ") : -1;
  if (dash !== -1) text = text.slice(dash + 3);
  return text.slice(0, ENGINE_MESSAGE_MAX_CHARS).trim();
}

/** The engine refused to create or start a sandbox container. */
export class EngineRefused extends RunNotStarted {
  override name = "EngineRefused";
  readonly engineMessage: string;

  constructor(cause: unknown) {
    const message = engineMessage(cause);
    super(`the container engine could not start the sandbox container: ${message}`);
    this.engineMessage = message;
  }
}

/**
 * The error to throw for a failed create or start: an answer of the engine becomes
 * EngineRefused; an engine that could not be reached keeps its own error (its code tells an
 * outage, see docker-watch.ts).
 */
export function refusedOr(error: unknown): unknown {
  const answered =
    typeof error === "object" &&
    error !== null &&
    typeof (error as { statusCode?: unknown }).statusCode === "number";
  return answered ? new EngineRefused(error) : error;
}
