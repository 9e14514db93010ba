// The audit log's entry: one JSON object per line of an append-only file. Shared by the host
// (which writes, verifies, queries and exports it) and the UI (which shows it), so this module
// must stay free of Node imports.
import { z } from "zod";
import { callDecisionSchema, common, count, millis, sha256Hex } from "./audit-entry-fields.js";
import {
  approvalAnsweredEntrySchema,
  approvalRequestedEntrySchema,
  toolHeldEntrySchema,
  pinsMovedEntrySchema,
  toolReviewedEntrySchema,
  toolsPinnedEntrySchema,
} from "./audit-review-entries.js";
import { tryFinishedEntrySchema, tryStartedEntrySchema } from "./audit-try-entries.js";
import {
  runFilesField,
  runWorkspaceField,
  workspaceEditedEntrySchema,
  workspaceKeepDifferedEntrySchema,
} from "./audit-workspace-entries.js";
import { ENGINE_LIMITS } from "./limits.js";
import { STOP_REASONS } from "./run-result.js";
import { sandboxRuntimeSchema } from "./settings.js";

/** `prev` of the very first entry: there is no line before it to hash. */
export const GENESIS_PREV = "0".repeat(64);

export const AUDIT_KINDS = [
  "client_connected",
  "client_disconnected",
  "run_started",
  "run_finished",
  "call",
  "config_changed",
  "settings_changed",
  "image_build",
  "taint_set",
  "taint_reset",
  "auth_refused",
  "calls_not_logged",
  "audit_recovered",
  "audit_pruned",
  "docker_lost",
  "runs_refused",
  "docker_back",
  "run_abandoned",
  "approval_requested",
  "approval_answered",
  "tools_pinned",
  "tool_held",
  "tool_reviewed",
  "pins_moved",
  "clients_not_logged",
  "client_cut_off",
  "connections_capped",
  "connections_uncapped",
  "cut_offs_not_logged",
  "auth_refusals_not_logged",
  "try_started",
  "try_finished",
  "workspace_edited",
  "workspace_keep_differed",
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AUTH_TRANSPORTS = ["socket", "http", "ws"] as const;
export type AuthTransport = (typeof AUTH_TRANSPORTS)[number];

const clientConnection = {
  client: z.string(),
  /** Null when the client did not say. */
  clientVersion: z.string().nullable(),
  connectionId: z.string(),
};

export const clientConnectedEntrySchema = z.object({
  ...common,
  kind: z.literal("client_connected"),
  ...clientConnection,
  /**
   * Connections left out of the log (over CLIENT_ENTRIES_LOGGED in a window) since
   * the last entry that said how many: a client can connect and leave in a loop.
   */
  notLogged: count.optional(),
});

export const clientDisconnectedEntrySchema = z.object({
  ...common,
  kind: z.literal("client_disconnected"),
  ...clientConnection,
});

/**
 * Client connections left out of the log (over CLIENT_ENTRIES_LOGGED in a window)
 * that no client_connected counted yet (notLogged): written at the first one left out, then at
 * most every CLIENTS_NOT_LOGGED_FLUSH_MS while more are, and when the app stops. A loop
 * of connections is on the record even if the app is killed before the next one logged.
 */
export const clientsNotLoggedEntrySchema = z.object({
  ...common,
  kind: z.literal("clients_not_logged"),
  /** How many connections this entry stands for. */
  count: count,
});

/** Where a connection was cut off: a shim's local socket, or the browser UI's WebSocket. */
export const CUT_OFF_TRANSPORTS = ["socket", "ws"] as const;

/**
 * A connection closed by the host because it left more answers unread than the bound
 * (HOST_LIMITS.socketUnreadMaxBytes, wsUnreadMaxBytes): a client asking without reading kept
 * every answer in the host's memory. Past CUT_OFF_ENTRIES_LOGGED a window, the rest
 * are counted (notLogged) in the next one logged.
 */
export const clientCutOffEntrySchema = z.object({
  ...common,
  kind: z.literal("client_cut_off"),
  transport: z.enum(CUT_OFF_TRANSPORTS),
  /** The client's name as its initialize gave it; "browser UI" for the UI's WebSocket. */
  client: z.string(),
  /** The connection's id in its client_connected; null where there is none (a WebSocket). */
  connectionId: z.string().nullable(),
  /** Bytes of answers it had left unread when it was cut off. */
  unreadBytes: count,
  /** The bound it passed. */
  limitBytes: count,
  /** Cut-offs left out of the log before this one (over the bound a window). */
  notLogged: count.optional(),
});

/**
 * Cut-offs left out of the log (over CUT_OFF_ENTRIES_LOGGED a window) that no
 * client_cut_off counted yet (notLogged): written at the first one left out, then at most every
 * CUT_OFF_WINDOW_MS while more are, and at the stop. A client cut off after a flood of
 * others is on the record even if no cut-off is logged after it.
 */
export const cutOffsNotLoggedEntrySchema = z.object({
  ...common,
  kind: z.literal("cut_offs_not_logged"),
  count: count,
});

/** The loopback HTTP servers that cap their open connections: MCP over HTTP, the browser UI. */
export const CAPPED_SERVERS = ["mcp_http", "ui"] as const;

const connectionCap = {
  server: z.enum(CAPPED_SERVERS),
  /** The cap: HOST_LIMITS.httpConnectionsMax open connections. */
  max: count,
  /** Connections refused since this server's previous connections_capped/_uncapped entry. */
  refused: count,
};

/**
 * A loopback HTTP server reached its cap of open connections and refuses new ones: anyone on
 * this machine, token or not, can hold them all and lock every real client out. Past
 * CONNECTION_CAP_EPISODES_LOGGED a window, the times it is reached are counted
 * (notLogged) in the next one logged, their refused connections in `refused`; one of them still
 * lasting when a window has room is logged then (at its next refusal), not counted.
 */
export const connectionsCappedEntrySchema = z.object({
  ...common,
  kind: z.literal("connections_capped"),
  ...connectionCap,
  notLogged: count.optional(),
});

/** The server is under its cap again, after a logged connections_capped. */
export const connectionsUncappedEntrySchema = z.object({
  ...common,
  kind: z.literal("connections_uncapped"),
  ...connectionCap,
  /** How long it was at its cap. */
  durationMs: millis,
});

/** An engine's name and address in a run's entries: a URL chosen by the user is cut to this. */
const engineNameSchema = z.string().max(ENGINE_LIMITS.choiceMaxChars + 100);

export const runStartedEntrySchema = z.object({
  ...common,
  kind: z.literal("run_started"),
  runId: z.string(),
  client: z.string(),
  /**
   * The code as sent, cut to AUDIT_LIMITS.codeMaxBytes by taking out its middle; codeBytes and
   * codeHash are of all of it.
   */
  code: z.string(),
  codeBytes: count,
  codeHash: sha256Hex,
  /** The container runtime the run got (runc, or gVisor's runsc); absent in older logs. */
  runtime: sandboxRuntimeSchema.optional(),
  /**
   * The engine the run went to: its name and where it is (`podman unix:///run/podman/podman.sock`,
   * `tcp://build.example:2376 (TLS)`); absent in older logs and where none answered.
   */
  engine: engineNameSchema.optional(),
  /** The workspace the run named; absent when it named none. */
  workspace: z.string().optional(),
});

export const runFinishedEntrySchema = z.object({
  ...common,
  kind: z.literal("run_finished"),
  runId: z.string(),
  client: z.string(),
  durationMs: millis,
  calls: count,
  exitCode: z.number().int().nullable(),
  stopped: z.enum(STOP_REASONS).nullable(),
  timedOut: z.boolean(),
  truncated: z.boolean(),
  error: z.string().nullable(),
  /**
   * The exception the code raised: its type's name ("ValueError") and its message, as the
   * runner reported them. Absent when it raised none (and in older logs): the summary then reads
   * the last line of `error`.
   */
  errorType: z.string().optional(),
  errorMessage: z.string().optional(),
  stdoutBytes: count,
  stderrBytes: count,
  /**
   * The tools the code called, as it named them, each with how many calls it made (refused ones
   * too), in the order of their first call: at most CALLED_TOOLS_NAMED (audit-recorder.ts) tools, the
   * calls of the others are in `calls` only. Absent when it called none, and in older logs.
   */
  calledTools: z.array(z.object({ tool: z.string(), calls: count })).optional(),
  /**
   * Images the code attached with show(): name, size and hash, never the bytes (the host keeps
   * recent ones in memory for the Audit page). Absent when there were none, and in older logs.
   */
  images: z.array(z.object({ name: z.string(), bytes: count, sha256: sha256Hex })).optional(),
  /** Files the code attached (attach(path)); absent when there were none. */
  files: runFilesField.optional(),
  /** What became of the workspace the run opened; absent when it named none. */
  workspace: runWorkspaceField.optional(),
  runtime: sandboxRuntimeSchema.optional(),
  engine: engineNameSchema.optional(),
  /**
   * The receipt: UTF-8 bytes of the run_python content the client was sent (its JSON), and of
   * the content of every result the run's calls got back, summed: what a client calling the
   * tools one at a time would have received. Absent in older logs.
   */
  resultBytes: count.optional(),
  oneByOneBytes: count.optional(),
  /**
   * Of oneByOneBytes, the bytes of images and audio (their base64 data) in the calls' results:
   * a model sees those, it does not read them as text, so the receipt leaves them out. Absent
   * when there were none, and in older logs.
   */
  oneByOneMediaBytes: count.optional(),
});

export const callEntrySchema = z.object({
  ...common,
  kind: z.literal("call"),
  runId: z.string(),
  client: z.string(),
  /** Null when the name the code called matched no tool. */
  server: z.string().nullable(),
  /** The Python name the code called. */
  tool: z.string(),
  /** The server's own name for the tool; null when the name matched no tool. */
  serverTool: z.string().nullable(),
  decision: callDecisionSchema,
  /** For refused and failed calls: what the code was told. */
  reason: z.string().nullable(),
  /** For host faults: the exception's own message, which never reaches the code. */
  detail: z.string().nullable(),
  argBytes: count,
  /**
   * JSON text of the arguments with secrets replaced and cut; null for a tool marked to hide
   * them (hideArgs). Older logs also have null for every private tool.
   */
  args: z.string().nullable(),
  /** Null when no result came back. */
  resultBytes: count.nullable(),
  resultHash: sha256Hex.nullable(),
  durationMs: millis,
  private: z.boolean(),
});

export const configChangedEntrySchema = z.object({
  ...common,
  kind: z.literal("config_changed"),
  summary: z.string(),
  /** The server names in the config after the change. */
  servers: z.array(z.string()),
});

export const settingsChangedEntrySchema = z.object({
  ...common,
  kind: z.literal("settings_changed"),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
});

export const imageBuildEntrySchema = z.object({
  ...common,
  kind: z.literal("image_build"),
  tag: z.string(),
  ok: z.boolean(),
  error: z.string().nullable(),
  durationMs: millis,
});

export const taintSetEntrySchema = z.object({
  ...common,
  kind: z.literal("taint_set"),
  client: z.string(),
  server: z.string(),
  tool: z.string(),
  /** Set when the client opened a workspace holding private data (no call did it). */
  workspace: z.string().optional(),
});

export const taintResetEntrySchema = z.object({
  ...common,
  kind: z.literal("taint_reset"),
  client: z.string(),
  /** The tool whose call had tainted the client. */
  previousTool: z.string(),
});

export const authRefusedEntrySchema = z.object({
  ...common,
  kind: z.literal("auth_refused"),
  reason: z.string(),
  transport: z.enum(AUTH_TRANSPORTS),
});

/**
 * Refused connections left out of the log (over AUTH_REFUSALS_PER_MINUTE a window)
 * that no auth_refused reason counted yet: written at the first one left out, then at most
 * every AUTH_REFUSAL_WINDOW_MS while more are, and at the stop. Knocking that stops
 * after a burst, or an app killed after it, is on the record at its size, not as 30 entries.
 */
export const authRefusalsNotLoggedEntrySchema = z.object({
  ...common,
  kind: z.literal("auth_refusals_not_logged"),
  count: count,
  /** The transports those refusals came on, each once. */
  transports: z.array(z.enum(AUTH_TRANSPORTS)).min(1),
});

/** Why a run's calls were counted in one entry instead of logged one by one. */
export const NOT_LOGGED_CAUSES = ["call_budget", "audit_limit"] as const;

/**
 * One entry for the calls of a run that were not logged one by one, written before its
 * run_finished: refusals after the call budget was spent cost the log one line, not one each.
 */
export const callsNotLoggedEntrySchema = z.object({
  ...common,
  kind: z.literal("calls_not_logged"),
  runId: z.string(),
  client: z.string(),
  cause: z.enum(NOT_LOGGED_CAUSES),
  /** How many calls this entry stands for. */
  count: count,
  /** Up to a few distinct tool names among them, as the code called them. */
  tools: z.array(z.string()),
});

/**
 * The log could not be written for a while (a full disk, a permission taken away), so runs
 * were refused; this is the first entry that could be written again.
 */
export const auditRecoveredEntrySchema = z.object({
  ...common,
  kind: z.literal("audit_recovered"),
  /** When the first append failed (ISO 8601). */
  failedSince: z.iso.datetime(),
  /** Why it failed. */
  error: z.string(),
  /** Entries that could not be written meanwhile. */
  lost: count,
});

/**
 * The oldest audit files were deleted to keep the log under its total size cap; the checkpoint
 * was told first, so verify sees a retention cut, and this entry says what went.
 */
export const auditPrunedEntrySchema = z.object({
  ...common,
  kind: z.literal("audit_pruned"),
  /** Names of the deleted files, oldest first. */
  files: z.array(z.string()),
  /** Seq range the deleted files held. */
  fromSeq: count,
  toSeq: count,
  /** Bytes freed. */
  bytes: count,
  /** The cap that was exceeded. */
  maxTotalBytes: count,
});

/** The Docker engine stopped answering (its event stream ended, or a call to it failed). */
export const dockerLostEntrySchema = z.object({
  ...common,
  kind: z.literal("docker_lost"),
  /** The engine as the user named it or it was found: `unix:///var/run/docker.sock`. */
  endpoint: z.string(),
  /** How the loss was noticed. */
  reason: z.string(),
});

/** Why runs were refused before they started, counted in one entry. */
export const RUN_REFUSAL_CAUSES = ["docker_unreachable"] as const;

/**
 * Runs refused at once while Docker could not be reached: counted, not logged one by one (a
 * retrying client would otherwise write thousands of entries a minute). Written when Docker
 * is back, or when the app stops while it is still away.
 */
export const runsRefusedEntrySchema = z.object({
  ...common,
  kind: z.literal("runs_refused"),
  cause: z.enum(RUN_REFUSAL_CAUSES),
  /** How many runs this entry stands for. */
  count: count,
  /** The first and the last refusal it counts (ISO 8601). */
  firstAt: z.iso.datetime(),
  lastAt: z.iso.datetime(),
  /** Up to a few distinct client names among them. */
  clients: z.array(z.string()),
});

/**
 * Docker answers again after a docker_lost: this install's leftover containers were removed and
 * the warm pool refilled before runs were let through.
 */
export const dockerBackEntrySchema = z.object({
  ...common,
  kind: z.literal("docker_back"),
  endpoint: z.string(),
  /** How long it was away, from the moment the loss was noticed. */
  downMs: millis,
  /** Containers of this install left by the outage (runs in flight, warm ones) and removed. */
  sweptContainers: count,
  /** Warm containers started again. */
  warmContainers: count,
});

/** Why a run that started has no run_finished. */
export const ABANDON_REASONS = ["the app stopped"] as const;

/**
 * Written at start for each run that started and never ended because the app stopped under it
 * (a crash, a kill): the log then says what became of every run.
 */
export const runAbandonedEntrySchema = z.object({
  ...common,
  kind: z.literal("run_abandoned"),
  runId: z.string(),
  client: z.string(),
  reason: z.enum(ABANDON_REASONS),
  /** The seq of the run's run_started entry. */
  startedSeq: count,
});

export const auditEntrySchema = z.discriminatedUnion("kind", [
  clientConnectedEntrySchema,
  clientDisconnectedEntrySchema,
  runStartedEntrySchema,
  runFinishedEntrySchema,
  callEntrySchema,
  configChangedEntrySchema,
  settingsChangedEntrySchema,
  imageBuildEntrySchema,
  taintSetEntrySchema,
  taintResetEntrySchema,
  authRefusedEntrySchema,
  callsNotLoggedEntrySchema,
  auditRecoveredEntrySchema,
  auditPrunedEntrySchema,
  dockerLostEntrySchema,
  runsRefusedEntrySchema,
  dockerBackEntrySchema,
  runAbandonedEntrySchema,
  approvalRequestedEntrySchema,
  approvalAnsweredEntrySchema,
  toolsPinnedEntrySchema,
  toolHeldEntrySchema,
  toolReviewedEntrySchema,
  pinsMovedEntrySchema,
  clientsNotLoggedEntrySchema,
  clientCutOffEntrySchema,
  connectionsCappedEntrySchema,
  connectionsUncappedEntrySchema,
  cutOffsNotLoggedEntrySchema,
  authRefusalsNotLoggedEntrySchema,
  tryStartedEntrySchema,
  tryFinishedEntrySchema,
  workspaceEditedEntrySchema,
  workspaceKeepDifferedEntrySchema,
]);

export type AuditEntry = z.infer<typeof auditEntrySchema>;
export type AuditEntryOf<K extends AuditKind> = Extract<AuditEntry, { kind: K }>;
export type RunStartedEntry = AuditEntryOf<"run_started">;
export type RunFinishedEntry = AuditEntryOf<"run_finished">;
export type CallEntry = AuditEntryOf<"call">;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What a writer supplies: the log adds seq, ts and prev. */
export type AuditEntryInput = DistributiveOmit<AuditEntry, "seq" | "ts" | "prev">;

// Split out by concern; re-exported so importers keep one module for the audit log's shapes.
// (The query types in audit-query-types.ts are imported from there: they use the entry types,
// so re-exporting them here would make an import cycle.)
export * from "./audit-entry-fields.js";
export * from "./audit-review-entries.js";
export * from "./audit-try-entries.js";
export * from "./audit-workspace-entries.js";
