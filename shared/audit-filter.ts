// The rules of an audit filter, shared by the host's query and the UI's live tail, so an
// entry that arrives live is shown exactly when the same query would have returned it.
import type { AuditEntry } from "./audit-entry.js";
import type { AuditFilter } from "./audit-query-types.js";

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
    case "approval_requested":
    case "approval_answered":
    case "tools_pinned":
    case "tool_held":
    case "tool_reviewed":
    case "try_started":
    case "try_finished":
      return [entry.server];
    case "pins_moved":
      return [entry.from, entry.to];
    case "config_changed":
      return entry.servers;
    default:
      return [];
  }
}

export function toolsOf(entry: AuditEntry): readonly (string | null)[] {
  switch (entry.kind) {
    case "call":
    case "approval_requested":
    case "approval_answered":
      return [entry.tool, entry.serverTool];
    case "taint_set":
    case "tool_held":
    case "tool_reviewed":
      return [entry.tool];
    case "taint_reset":
      return [entry.previousTool];
    default:
      return [];
  }
}

// Not searched as text: times, the chain and content hashes (long hex that no one types, and
// most of each line's bytes, which would make a search read twice as much).
function isTextKey(key: string): boolean {
  return key !== "ts" && key !== "prev" && key !== "sha256" && !key.endsWith("Hash");
}

/** Between values and after each entry in entryText: a needle never holds it, so a match never spans two values. */
export const TEXT_SEPARATOR = "\u0000";

/**
 * What `text` is matched against: the entry's string values (its kind, names, reasons,
 * arguments, code...), lowercased, each followed by TEXT_SEPARATOR. Takes any parsed line, not
 * only a valid entry: the host's index builds it from lines it has not validated.
 */
export function entryText(entry: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === "string") {
      parts.push(value.replaceAll(TEXT_SEPARATOR, " ").toLowerCase(), TEXT_SEPARATOR);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) if (isTextKey(key)) walk(item);
    }
  };
  walk(entry);
  return parts.join("");
}

/** A `text` filter as entryText spells it; null when it can never match. */
export function textNeedle(text: string): string | null {
  return text.includes(TEXT_SEPARATOR) ? null : text.toLowerCase();
}

/**
 * Every field but `text`: exact names, any of the kinds, `from` inclusive and `to`
 * exclusive. (`text` is matched against entryText.)
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
