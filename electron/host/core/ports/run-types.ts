import type { RunFile, RunImage, RunResult, RunWorkspace } from "../../../../shared/run-result.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";

/** An image the run attached: what the result lists, and the PNG bytes themselves. */
export interface RunImageData extends RunImage {
  png: Buffer;
}

/**
 * Why a call failed, as the code reads it in ToolError.reason: refused by a check (the tool,
 * the size, the audit log's room, a held tool), its arguments invalid against the schema, the
 * private-data rule, the run's call budget, the user said no ("ask first"), the server failed
 * or answered with an error, or the call timed out.
 */
export const TOOL_ERROR_REASONS = [
  "refused",
  "invalid",
  "private",
  "budget",
  "denied",
  "server_error",
  "timeout",
] as const;
export type ToolErrorReason = (typeof TOOL_ERROR_REASONS)[number];

/**
 * How the namespaced form reads a successful result (the `params: dict` form always gets
 * `value`, the string): absent, `value` is the text; "json", `value` is a single text item that
 * may be a JSON object or array (parsed when it is); "structured", `value` is the structured
 * content as JSON (`invalid`, when set, says how it breaks the tool's output schema: the call
 * raises instead); "content", the result is `items`, non-text ones as small objects.
 */
export type ResultForm =
  | { form?: undefined }
  | { form: "json" }
  | { form: "structured"; invalid?: string }
  | { form: "content"; items: ResultItem[] };

/** One content item of a result as the namespaced form reads it: never base64 but an image's. */
export type ResultItem =
  | { kind: "text"; text: string }
  | {
      kind: "image" | "audio" | "resource" | "resource_link" | "other";
      mime?: string;
      uri?: string;
      bytes: number;
      /** An image's base64 data, for show(); absent past RESULT_IMAGE_DATA_MAX_BYTES. */
      data?: string;
    };

/** A file the run attached: what the result lists (but its link), and the bytes themselves. */
export interface RunFileData extends Omit<RunFile, "uri"> {
  data: Buffer;
}

/** A container's workspace slot: the folder mounted into it, and where /workspace points. */
export interface WorkspaceSlot {
  dir: string;
  workspace: string;
  /** Gives the host back what a run left there and shut it out of; absent where it cannot. */
  open?: (() => Promise<void>) | undefined;
}

/** How a run's workspace ended: what the result reports, and why nothing was kept if so. */
export interface WorkspaceOutcome {
  report: RunWorkspace;
  /** Set when the run's changes were refused (over the size limit...): the run fails with it. */
  problem: string | null;
}

/**
 * What a run left in its workspace, looked at once its code ended: the outcome its result
 * reports, and the keep still to do once its container has stopped.
 */
export interface WorkspaceChecked {
  outcome: WorkspaceOutcome;
  /**
   * Keeps what the slot holds once nothing in the container can write to it (`stopped`; false:
   * the container could not be stopped, and nothing of the run is kept), whole or not at all.
   * Null when there is nothing to keep: the run was stopped, or its changes were refused.
   */
  keep: ((slot: WorkspaceSlot, stopped: boolean) => Promise<unknown>) | null;
}

/**
 * The workspace a run opened (the engine holds it for the run): the sandbox puts its files in
 * the slot of the container it takes, watches the slot's size while the code runs, looks at
 * the slot as the code ends (the run is answered with that), and hands the slot back once the
 * container has stopped, to be kept whole or not at all.
 */
export interface RunWorkspaceRequest {
  readonly name: string;
  readonly maxBytes: number;
  fill(slot: WorkspaceSlot): Promise<void>;
  /** `finished`: the code ran to its end (raised or not); a stopped run keeps nothing. */
  check(slot: WorkspaceSlot, finished: boolean): Promise<WorkspaceChecked>;
}

/** What a tool call from the code comes back as: a value, or a refusal raised as ToolError. */
export type CallOutcome =
  | ({ ok: true; value: string } & ResultForm)
  | {
      ok: false;
      message: string;
      /** Absent where no check said (a host fault): the runner reads it as "server_error". */
      reason?: ToolErrorReason;
      /** What was wrong, without the tool's name: the namespaced form's message names it. */
      detail?: string;
    };

/** Called for every tool call the code makes; the bridge implements it. */
export type CallHandler = (tool: string, args: unknown) => Promise<CallOutcome>;

/** One tool as the code reads it through TOOLS[name] and search_tools. */
export interface SandboxTool {
  name: string;
  stub: string;
  /** The server's description as the catalog keeps it (cut, masked); "" when left out. */
  description?: string | undefined;
  /** The input schema as JSON text (masked), or null/absent when left out as too large. */
  schema?: string | null | undefined;
  /** The server marks it deprecated: the runner's name suggestions prefer other tools. */
  deprecated?: boolean | undefined;
  /**
   * Its namespace and method in the code (`notes`, `search`: `await notes.search(query=...)`);
   * absent for a tool called only by its name.
   */
  namespace?: string | undefined;
  method?: string | undefined;
  /**
   * For a method whose `schema` is null: each keyword that is not its parameter's name, to that
   * name (`{"from_": "from"}`), which the runner otherwise reads from the schema.
   */
  keywords?: Readonly<Record<string, string>> | undefined;
}

export interface RunRequest {
  code: string;
  stdin?: string | undefined;
  /** Lowers the default deadline, never raises it. */
  deadlineSeconds?: number | undefined;
  /** The catalog sent at start: TOOLS and search_tools work on it inside the sandbox. */
  tools?: readonly SandboxTool[] | undefined;
  /**
   * Servers not running: a name the code uses that starts with `prefix` and is no tool is a
   * function that raises ToolError with the reason; with `namespace`, so is every method of
   * that namespace (unless a running server's tools have it).
   */
  down?:
    readonly { prefix: string; server: string; reason: string; namespace?: string }[] | undefined;
  /**
   * Tools held for the user's review (pinned definitions that changed): a name here that the code uses is a
   * function raising ToolError with `message`, never a call to the host. With `namespace` and
   * `method`, that method of the namespace does the same.
   */
  held?:
    readonly { name: string; message: string; namespace?: string; method?: string }[] | undefined;
  /** The workspace the run opened, mounted at /workspace; absent: it has none. */
  workspace?: RunWorkspaceRequest | undefined;
}

export interface RunHooks {
  onCall?: CallHandler | undefined;
  /** Told of each image the code attached, as soon as it is complete and checked. */
  onImage?: ((image: RunImageData) => void) | undefined;
  /** Told of each file the code attached (attach(path)), once it is complete and checked. */
  onFile?: ((file: RunFileData) => void) | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Aborted, with a StopReason as its reason, when a bound the host keeps outside the
   * sandbox (the call budget, the run's audit bytes) says the run must stop.
   */
  limit?: AbortSignal | undefined;
  /**
   * Told of the container the run got, once it has it: the runtime it was made with, which the
   * audit names for the run (a switch of the setting while the run waited for one may differ).
   */
  onContainer?: ((container: { runtime: SandboxRuntime }) => void) | undefined;
  /** Told once the run's deadline starts counting, with its length in milliseconds. */
  onDeadline?: ((ms: number) => void) | undefined;
  /**
   * Settles once the run's answer has gone out. The container of a run that ended by itself
   * (its runner exited after `done`) is removed only then: the engine's work of removing it
   * would otherwise slow the answer. One the host stopped is killed at once. Absent: at once.
   */
  removeAfter?: Promise<void> | undefined;
}

/** What the engine needs of a sandbox: the Sandbox itself, or the host's supervisor around it. */
export interface SandboxRunner {
  run(request: RunRequest, hooks: RunHooks): Promise<RunResult>;
  readonly deadlineSeconds: number;
  /** The container runtime runs get (the audit log names it); runc when not said. */
  readonly runtime?: SandboxRuntime;
  /** Resolves once it knows where runs go: a run waits for that before its start is recorded. */
  settled?(signal?: AbortSignal): Promise<void>;
}
