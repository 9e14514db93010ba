// What the audit view needs to know about entries: labels, one-line summaries, and the
// same filter semantics as the host's query (so live entries match like queried ones).
import type { AuditFilter } from "../../../shared/api/api-contract.js";
import type { AuditEntry, AuditKind } from "../../../shared/audit-entry.js";
import { formatBytes, formatDuration } from "./format.js";

export const KIND_LABELS: Record<AuditKind, string> = {
  run_started: "Run started",
  run_finished: "Run finished",
  call: "Tool call",
  client_connected: "Client connected",
  client_disconnected: "Client left",
  config_changed: "Servers changed",
  settings_changed: "Settings changed",
  image_build: "Image build",
  taint_set: "Private mode on",
  taint_reset: "Private mode reset",
  auth_refused: "Access refused",
};

export const KINDS = Object.keys(KIND_LABELS) as AuditKind[];

export function kindLabel(kind: string): string {
  return (KIND_LABELS as Record<string, string>)[kind] ?? kind;
}

export function clientOf(entry: AuditEntry): string | null {
  return "client" in entry ? entry.client : null;
}

export function runIdOf(entry: AuditEntry): string | null {
  return "runId" in entry ? entry.runId : null;
}

function serversOf(entry: AuditEntry): readonly (string | null)[] {
  switch (entry.kind) {
    case "call":
    case "taint_set":
      return [entry.server];
    case "config_changed":
      return entry.servers;
    default:
      return [];
  }
}

function toolsOf(entry: AuditEntry): readonly (string | null)[] {
  switch (entry.kind) {
    case "call":
      return [entry.tool, entry.serverTool];
    case "taint_set":
      return [entry.tool];
    case "taint_reset":
      return [entry.previousTool];
    default:
      return [];
  }
}

/** Same rules as the host's audit query: exact names, any of the kinds, text anywhere. */
export function matchesFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  const ms = Date.parse(entry.ts);
  if (filter.from && ms < Date.parse(filter.from)) return false;
  if (filter.to && ms >= Date.parse(filter.to)) return false;
  if (filter.kinds && filter.kinds.length > 0 && !filter.kinds.includes(entry.kind)) return false;
  if (filter.client !== undefined && clientOf(entry) !== filter.client) return false;
  if (filter.server !== undefined && !serversOf(entry).includes(filter.server)) return false;
  if (filter.tool !== undefined && !toolsOf(entry).includes(filter.tool)) return false;
  if (filter.decision !== undefined) {
    if (entry.kind !== "call" || entry.decision !== filter.decision) return false;
  }
  if (filter.runId !== undefined && runIdOf(entry) !== filter.runId) return false;
  if (filter.text) {
    if (!JSON.stringify(entry).toLowerCase().includes(filter.text.toLowerCase())) return false;
  }
  return true;
}

/** "server › tool" for calls and taint entries. */
export function targetOf(entry: AuditEntry): string {
  switch (entry.kind) {
    case "call":
      return entry.server ? `${entry.server} › ${entry.serverTool ?? entry.tool}` : entry.tool;
    case "taint_set":
      return `${entry.server} › ${entry.tool}`;
    case "taint_reset":
      return entry.previousTool;
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
      return firstLine(entry.code) || `${formatBytes(entry.codeBytes)} of code`;
    case "run_finished": {
      const outcome = runOutcome(entry);
      const calls = `${entry.calls} call${entry.calls === 1 ? "" : "s"}`;
      const error = entry.error
        ? ` · ${firstLine(entry.error.split("\n").slice(-2).join("\n"), 100)}`
        : "";
      return `${outcome.text} in ${formatDuration(entry.durationMs)} · ${calls}${error}`;
    }
    case "client_connected":
    case "client_disconnected":
      return entry.clientVersion ? `${entry.client} ${entry.clientVersion}` : entry.client;
    case "config_changed":
      return entry.summary;
    case "settings_changed":
      return Object.entries(entry.changes)
        .map(([key, change]) => `${key}: ${String(change.from)} → ${String(change.to)}`)
        .join(", ");
    case "image_build":
      return entry.ok
        ? `Built ${entry.tag} in ${formatDuration(entry.durationMs)}`
        : `Failed: ${firstLine(entry.error ?? "unknown error")}`;
    case "taint_set":
      return `${entry.client} called a private tool`;
    case "taint_reset":
      return `Reset by you`;
    case "auth_refused":
      return `${entry.transport}: ${entry.reason}`;
    default:
      return "";
  }
}
