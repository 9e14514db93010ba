// What the audit view needs to know about entries: labels, one-line summaries, and the
// same filter semantics as the host's query (so live entries match like queried ones).
import type { AuditFilter } from "../../../shared/api/api-contract.js";
import { triedCommandLine, type AuditEntry, type AuditKind } from "../../../shared/audit-entry.js";
import { entryMatchesFields, entryText, textNeedle } from "../../../shared/audit-filter.js";
import { visibleText } from "../../../shared/hidden-chars.js";
import { formatBytes, formatDuration } from "./format.js";
import { calledToolsText, errorLine, runTitle } from "./run-title.js";
import { settingsChangeText } from "./setting-labels.js";

export { clientOf, runIdOf } from "../../../shared/audit-filter.js";

export const KIND_LABELS: Record<AuditKind, string> = {
  run_started: "Run started",
  run_finished: "Run finished",
  call: "Tool call",
  client_connected: "Client connected",
  client_disconnected: "Client left",
  clients_not_logged: "Connections counted",
  client_cut_off: "Client cut off",
  connections_capped: "Connections full",
  connections_uncapped: "Connections free again",
  cut_offs_not_logged: "Cut-offs counted",
  config_changed: "Servers changed",
  settings_changed: "Settings changed",
  image_build: "Image build",
  taint_set: "Private mode on",
  taint_reset: "Private mode reset",
  auth_refused: "Access refused",
  auth_refusals_not_logged: "Refusals counted",
  calls_not_logged: "Calls counted",
  audit_recovered: "Log writable again",
  audit_pruned: "Old entries removed",
  docker_lost: "Docker lost",
  runs_refused: "Runs refused",
  docker_back: "Docker back",
  run_abandoned: "Run abandoned",
  approval_requested: "Asked you",
  approval_answered: "Your answer",
  tools_pinned: "Tools pinned",
  tool_held: "Tool held for review",
  tool_reviewed: "Tool reviewed",
  pins_moved: "Pins moved",
  try_started: "Server tried",
  try_finished: "Try finished",
  workspace_edited: "Workspace changed",
  workspace_keep_differed: "Workspace kept otherwise",
};

export const KINDS = Object.keys(KIND_LABELS) as AuditKind[];

export function kindLabel(kind: string): string {
  return (KIND_LABELS as Record<string, string>)[kind] ?? kind;
}

/** The host's query rules (shared), `text` included. */
export function matchesFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  const range = {
    fromMs: filter.from ? Date.parse(filter.from) : Number.NEGATIVE_INFINITY,
    toMs: filter.to ? Date.parse(filter.to) : Number.POSITIVE_INFINITY,
  };
  if (!entryMatchesFields(entry, filter, range)) return false;
  if (filter.text) {
    const needle = textNeedle(filter.text);
    if (needle === null || !entryText(entry).includes(needle)) return false;
  }
  return true;
}

/** "server › tool" for calls and taint entries. */
export function targetOf(entry: AuditEntry): string {
  switch (entry.kind) {
    case "call":
      return entry.server ? `${entry.server} › ${entry.serverTool ?? entry.tool}` : entry.tool;
    case "taint_set":
      // `tool` is already the Python name (server__tool).
      return entry.tool;
    case "taint_reset":
      return entry.previousTool;
    case "approval_requested":
    case "approval_answered":
      return `${entry.server} › ${entry.serverTool}`;
    case "tool_held":
    case "tool_reviewed":
      // The server's own name for a tool: shown with any hidden character escaped.
      return `${entry.server} › ${visibleText(entry.tool)}`;
    case "tools_pinned":
    case "try_started":
    case "try_finished":
      return entry.server;
    case "pins_moved":
      return `${entry.from} → ${entry.to}`;
    case "config_changed":
      return entry.servers.join(", ");
    default:
      return "";
  }
}

function firstLine(text: string, max = 160): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function runOutcome(entry: Extract<AuditEntry, { kind: "run_finished" }>): {
  tone: "ok" | "bad" | "warn";
  text: string;
} {
  // Not a stop of a running program: the code was refused as written, before it ran.
  if (entry.stopped === "check") return { tone: "bad", text: "Mistakes caught before running" };
  if (entry.stopped) return { tone: "warn", text: `Stopped (${entry.stopped.replace("_", " ")})` };
  if (entry.timedOut) return { tone: "warn", text: "Timed out" };
  if (entry.error || (entry.exitCode !== null && entry.exitCode !== 0)) {
    return { tone: "bad", text: "Raised an error" };
  }
  return { tone: "ok", text: "Finished" };
}

/** The short text at the end of a row. */
export function summaryOf(entry: AuditEntry): string {
  switch (entry.kind) {
    case "call":
      if (entry.decision === "allowed") {
        const size = entry.resultBytes !== null ? ` · ${formatBytes(entry.resultBytes)}` : "";
        return `${formatDuration(entry.durationMs)}${size}${entry.private ? " · private" : ""}`;
      }
      return firstLine(entry.reason ?? (entry.decision === "failed" ? "Failed" : "Refused"));
    case "run_started":
      return runTitle(entry.code) || `${formatBytes(entry.codeBytes)} of code`;
    case "run_finished": {
      const outcome = runOutcome(entry);
      const tools = calledToolsText(entry);
      const calls =
        entry.calls === 0
          ? "no calls"
          : tools !== ""
            ? tools
            : `${entry.calls} call${entry.calls === 1 ? "" : "s"}`;
      const raised = errorLine(entry);
      const error = raised !== null ? ` · ${raised}` : "";
      const shown = entry.images?.length ?? 0;
      const images = shown > 0 ? ` · ${shown} image${shown === 1 ? "" : "s"}` : "";
      const attached = entry.files?.length ?? 0;
      const files = attached > 0 ? ` · ${attached} file${attached === 1 ? "" : "s"}` : "";
      const ws = entry.workspace;
      const workspace =
        ws === undefined
          ? ""
          : ` · workspace ${ws.name}: ${ws.kept ? `${ws.filesChanged} changed` : "nothing kept"}`;
      return `${outcome.text} in ${formatDuration(entry.durationMs)} · ${calls}${images}${files}${workspace}${error}`;
    }
    case "client_connected": {
      const name = entry.clientVersion ? `${entry.client} ${entry.clientVersion}` : entry.client;
      return entry.notLogged === undefined
        ? name
        : `${name} (and ${entry.notLogged} connections before, not logged one by one)`;
    }
    case "client_disconnected":
      return entry.clientVersion ? `${entry.client} ${entry.clientVersion}` : entry.client;
    case "config_changed":
      return entry.summary;
    case "settings_changed":
      return settingsChangeText(entry.changes);
    case "image_build":
      return entry.ok
        ? `Built ${entry.tag} in ${formatDuration(entry.durationMs)}`
        : `Failed: ${firstLine(entry.error ?? "unknown error")}`;
    case "taint_set":
      return entry.workspace === undefined
        ? `${entry.client} called a private tool`
        : `${entry.client} opened the workspace ${entry.workspace}, which holds private data`;
    case "taint_reset":
      return `Reset by you`;
    case "auth_refused":
      return `${entry.transport}: ${entry.reason}`;
    case "auth_refusals_not_logged":
      return `${entry.count} connection${entry.count === 1 ? "" : "s"} refused (${entry.transports.join(", ")}), not logged one by one (too many this minute)`;
    case "calls_not_logged":
      return notLoggedSummary(entry);
    case "audit_recovered":
      return `${entry.lost} entries lost while the log could not be written: ${firstLine(entry.error)}`;
    case "audit_pruned":
      return `Seq ${entry.fromSeq}-${entry.toSeq} (${entry.files.length} files, ${entry.bytes} bytes) removed: the log was over its size cap`;
    case "docker_lost":
      return `Docker not reachable at ${entry.endpoint} (${entry.reason}); runs are refused until it is back`;
    case "clients_not_logged":
      return `${entry.count} client connection${entry.count === 1 ? "" : "s"} not logged one by one (too many this hour)`;
    case "client_cut_off":
      return cutOffSummary(entry);
    case "cut_offs_not_logged":
      return `${entry.count} client${entry.count === 1 ? "" : "s"} cut off for leaving answers unread, not logged one by one (too many this minute)`;
    case "connections_capped":
    case "connections_uncapped":
      return capSummary(entry);
    case "runs_refused":
      return `${entry.count} run${entry.count === 1 ? "" : "s"} refused while Docker was not reachable${entry.clients.length > 0 ? ` (${entry.clients.join(", ")})` : ""}`;
    case "run_abandoned":
      return `Never finished: ${entry.reason} (run started at #${entry.startedSeq})`;
    case "docker_back":
      return `Docker back at ${entry.endpoint} after ${formatDuration(entry.downMs)}: ${entry.sweptContainers} leftover container${entry.sweptContainers === 1 ? "" : "s"} removed, ${entry.warmContainers} warm started`;
    case "approval_requested":
      return `${entry.client} waits for your answer${entry.elicited ? " (also asked in the client)" : ""}`;
    case "approval_answered":
      return approvalSummary(entry);
    case "tools_pinned":
      return `${entry.count} tool definition${entry.count === 1 ? "" : "s"} pinned`;
    case "tool_held":
      return `${CHANGE_TEXT[entry.change]}: held out until you review it${entry.notLogged === undefined ? "" : ` (and ${entry.notLogged} more held, not logged one by one)`}`;
    case "tool_reviewed":
      return `${CHANGE_TEXT[entry.change]}: ${entry.decision === "accept" ? "accepted" : "rejected"} ${REVIEWER_TEXT[entry.by]}`;
    case "pins_moved":
      return `Renamed: ${entry.pinned} pinned definition${entry.pinned === 1 ? "" : "s"} and ${entry.held} held change${entry.held === 1 ? "" : "s"} kept under the new name`;
    case "try_started":
      return `Started ${REVIEWER_TEXT[entry.by]}${entry.source === "bundle" ? " from an .mcpb file" : ""}: ${firstLine(triedCommandLine(entry))}`;
    case "try_finished":
      return entry.ok
        ? `Started and listed ${entry.toolCount ?? 0} tool${entry.toolCount === 1 ? "" : "s"} in ${formatDuration(entry.durationMs)}, then stopped`
        : `Did not start: ${firstLine(withoutPrefix(entry.error ?? "unknown error", `Server ${JSON.stringify(entry.server)} failed to start: `))}`;
    case "workspace_keep_differed":
      return `${entry.client}'s workspace ${entry.workspace}: ${entry.kept ? `what the run left after its end was kept, ${entry.now.files} files (${formatBytes(entry.now.bytes)})` : "nothing of the run was kept"}, not what its result said`;
    case "workspace_edited":
      return `${entry.client}'s workspace ${entry.workspace}: ${WORKSPACE_EDIT_TEXT[entry.action]}${entry.path ? ` ${entry.path}` : ""}${entry.bytes === undefined ? "" : ` (${formatBytes(entry.bytes)})`} ${WORKSPACE_EDITOR_TEXT[entry.by]}`;
    default:
      return "";
  }
}

const WORKSPACE_EDIT_TEXT = {
  file_added: "added",
  file_removed: "removed",
  workspace_removed: "deleted",
} as const;

const WORKSPACE_EDITOR_TEXT = {
  ui: "by you, in Code Mode",
  cli: "by you, with codemode workspace",
  sweep: "as unused past the keep time",
} as const;

/** `text` without `prefix`, which a row would repeat: "Did not start: Server "x" failed to start: ...". */
function withoutPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

const ANSWER_TEXT = {
  allow_once: "Allowed once",
  allow_run: "Allowed for the rest of the run",
  deny: "Denied",
  timeout: "Denied: nobody answered in time",
  cancelled: "Not answered: the run ended first",
} as const;

const CHANGE_TEXT = {
  changed: "Definition changed",
  added: "New tool",
  removed: "Tool removed",
} as const;

const REVIEWER_TEXT = { app: "in the app", browser: "in the browser", cli: "on the command line" };

const APPROVER_TEXT = { app: "in the app", browser: "in the browser", client: "in the client" };

function approvalSummary(entry: Extract<AuditEntry, { kind: "approval_answered" }>): string {
  const by = entry.by === null ? "" : ` ${APPROVER_TEXT[entry.by]}`;
  return `${ANSWER_TEXT[entry.answer]}${by} after ${formatDuration(entry.waitedMs)}`;
}

function notLoggedSummary(entry: Extract<AuditEntry, { kind: "calls_not_logged" }>): string {
  const tools = entry.tools.length > 0 ? ` (${entry.tools.join(", ")})` : "";
  const what =
    entry.cause === "call_budget"
      ? "calls after the budget was spent, refused,"
      : "calls after the run's log entries reached their cap,";
  return `${entry.count} ${what} not logged one by one${tools}`;
}

function cutOffSummary(entry: Extract<AuditEntry, { kind: "client_cut_off" }>): string {
  const where = entry.transport === "socket" ? "local socket" : "browser WebSocket";
  const more =
    entry.notLogged === undefined
      ? ""
      : ` (and ${entry.notLogged} more before, not logged one by one)`;
  const unread = formatBytes(entry.unreadBytes);
  const limit = formatBytes(entry.limitBytes);
  // A cut-off comes as soon as the limit is passed, so both round to the same figure most of
  // the time, and "16.8 MB unread, over the 16.8 MB allowed" reads as a contradiction.
  const left =
    unread === limit
      ? `left more than the ${limit} of unread answers allowed`
      : `left ${unread} of answers unread, over the ${limit} allowed`;
  return `${entry.client} (${where}) ${left}: disconnected${more}`;
}

const CAPPED_SERVER_TEXT = { mcp_http: "MCP over HTTP", ui: "The browser UI's server" } as const;

function capSummary(
  entry: Extract<AuditEntry, { kind: "connections_capped" | "connections_uncapped" }>,
): string {
  const server = CAPPED_SERVER_TEXT[entry.server];
  const refused = `${entry.refused} connection${entry.refused === 1 ? "" : "s"} refused`;
  if (entry.kind === "connections_uncapped") {
    return `${server} takes connections again after ${formatDuration(entry.durationMs)} at its limit of ${entry.max}: ${refused} meanwhile`;
  }
  const before =
    entry.notLogged === undefined
      ? ""
      : ` (reached ${entry.notLogged} more times before, not logged one by one; ${refused} since the last entry)`;
  return `${server} is at its limit of ${entry.max} open connections: new ones are refused until some close${before}`;
}
