// The rules of an audit filter, shared by the host's query and the UI's live tail, so an
// entry that arrives live is shown exactly when the same query would have returned it.
import type { AuditEntry, AuditFilter } from "./audit-entry.js";

export function clientOf(entry: AuditEntry): string | null {
  return "client" in entry ? entry.client : null;
}

export function runIdOf(entry: AuditEntry): string | null {
  return "runId" in entry ? entry.runId : null;
}

export function serversOf(entry: AuditEntry): readonly (string | null)[] {
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

export function toolsOf(entry: AuditEntry): readonly (string | null)[] {
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

/**
 * Every field but `text`: exact names, any of the kinds, `from` inclusive and `to`
 * exclusive. (The host matches `text` against the line as written; see audit-query.)
 */
export function entryMatchesFields(
  entry: AuditEntry,
  filter: AuditFilter,
  range: { fromMs: number; toMs: number },
): boolean {
  const ms = Date.parse(entry.ts);
  if (ms < range.fromMs || ms >= range.toMs) return false;
  if (filter.kinds && filter.kinds.length > 0 && !filter.kinds.includes(entry.kind)) return false;
  if (filter.client !== undefined && clientOf(entry) !== filter.client) return false;
  if (filter.server !== undefined && !serversOf(entry).includes(filter.server)) return false;
  if (filter.tool !== undefined && !toolsOf(entry).includes(filter.tool)) return false;
  if (filter.decision !== undefined) {
    if (entry.kind !== "call" || entry.decision !== filter.decision) return false;
  }
  if (filter.runId !== undefined && runIdOf(entry) !== filter.runId) return false;
  return true;
}
