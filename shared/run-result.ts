/** Why a run was stopped before its code finished on its own. */
export const STOP_REASONS = [
  "deadline",
  "output_limit",
  "protocol_violation",
  "memory",
  "cancelled",
  /** It kept calling after its call budget was spent (REFUSALS_PAST_BUDGET). */
  "call_budget",
  /** It sent more messages (output chunks, calls) than MESSAGES_PER_RUN. */
  "message_limit",
  /** Its audit entries reached RUN_COST_LIMITS.auditBytesPerRun. */
  "audit_limit",
  /**
   * The runner's check found mistakes in its direct tool calls (an unknown tool or argument, a
   * missing one, a literal of the wrong type): ended before its first statement, no call made.
   */
  "check",
  /** What it wrote in its workspace went past the workspace's size limit. */
  "workspace_limit",
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** What a run's code raised, as data: "ValueError" and "bad value", never a traceback. */
export interface RunException {
  type: string;
  message: string;
}

/** An image the code attached with show(): the result lists it; the PNG travels beside it. */
export interface RunImage {
  /** ASCII letters, digits, `.`, `_` and `-` (the runner makes it so; the host checks). */
  name: string;
  bytes: number;
  sha256: string;
  width: number;
  height: number;
}

/** A file the code attached with attach(path): the client reads it back by `uri`. */
export interface RunFile {
  /** Its name: the last part of its path, plain ASCII (the runner makes it so; the host checks). */
  name: string;
  bytes: number;
  sha256: string;
  mimeType: string;
  /** `codemode://files/...`: readable with resources/read by the client that ran the code. */
  uri: string;
}

/** What became of the run's workspace. */
export interface RunWorkspace {
  name: string;
  /** Whether the run's changes were kept (a run over the size limit, or stopped, keeps none). */
  kept: boolean;
  /** Files added, changed or removed by the run, and the bytes of those added or changed. */
  filesChanged: number;
  bytesChanged: number;
  /** What the workspace holds now (after the run, or as before it when nothing was kept). */
  files: number;
  bytes: number;
  /** It holds data a run read from a private tool: every run that opens it is treated so. */
  private: boolean;
  /**
   * What became of the previous run's workspace when its keep found otherwise than that run's
   * result said (its code wrote after its end): this run is the first to be told.
   */
  notice?: string;
}

/**
 * Where run_python's result carries the whole RunResult for programs: its `_meta`, under this
 * key. Not `structuredContent`: some clients give the model structuredContent in place of the
 * text content when a result has it (Claude Code 2.x sends the model its JSON), so the model
 * would read every field as JSON instead of the compact text. `_meta` is never the model's.
 */
export const RUN_RESULT_META_KEY = "codemode/result";

/** The RunResult in a run_python result's `_meta`, if it carries one. */
export function runResultIn(result: { _meta?: Record<string, unknown> }): RunResult | undefined {
  return result._meta?.[RUN_RESULT_META_KEY] as RunResult | undefined;
}

/** How `error` starts when the sandbox ended before the runner said the run was done. */
export const SANDBOX_ENDED_ERROR = "the sandbox ended without finishing the run";

/**
 * Whether a run failed: its code raised, or the run was stopped (deadline, a limit, cancelled)
 * or ended without finishing. run_python marks such a result `isError`; `codemode run` exits
 * non-zero.
 */
export function runFailed(result: Pick<RunResult, "error" | "stopped">): boolean {
  return result.error !== null || result.stopped !== null;
}

/** What a run returns: `codemode run` prints it, `run_python` returns it. */
export interface RunResult {
  stdout: string;
  stderr: string;
  /** The last lines of the traceback when the code raised, else null. */
  error: string | null;
  /**
   * The exception the code raised: its type's name and its message (each cut), as the runner
   * reported it. Absent when the code did not raise one (it finished, exited with a status, or
   * was stopped).
   */
  exception?: RunException;
  /** 0 when the code finished, 1 when it raised, the container's status when it died. */
  exit_code: number | null;
  /** True when stdout or stderr was cut to its kept size. */
  truncated: boolean;
  timed_out: boolean;
  stopped: StopReason | null;
  duration_ms: number;
  /** Tool calls the code made (every one the host read, refused or not). */
  calls: number;
  /** Images attached with show(), in order; run_python returns each as an image content item. */
  images: RunImage[];
  /** Files attached with attach(path), in order; run_python returns each as a resource_link. */
  files?: RunFile[];
  /** The workspace the run opened; absent when it named none. */
  workspace?: RunWorkspace;
}
