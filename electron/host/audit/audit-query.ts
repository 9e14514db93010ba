// Reading the log back for the audit view: newest first, by pages, without loading it whole.
// Lines are written by JSON.stringify, so a value a filter asks for appears in a matching
// line exactly as JSON.stringify spells it: a substring test on the raw line rules most lines
// out before any of them is parsed.
import {
  auditEntrySchema,
  type AuditEntry,
  type AuditFilter,
  type AuditPage,
  type AuditQueryResult,
  type AuditRunDetail,
  type CallEntry,
} from "../../../shared/audit-entry.js";
import { linesBackward, listAuditFiles } from "./audit-files.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { entryMatchesFields } from "../../../shared/audit-filter.js";

// The writer puts seq and ts first: reading them needs no parse of the rest.
const HEADER = /^\{"seq":(\d+),"ts":"([^"]+)"/;

export interface CompiledFilter {
  /** False only when the line cannot match; true means "parse and ask `entry`". */
  line(text: string): boolean;
  entry(entry: AuditEntry): boolean;
  fromMs: number;
  toMs: number;
  /** Whether the filter narrows anything at all. */
  empty: boolean;
}

export function compileFilter(filter: AuditFilter = {}): CompiledFilter {
  const fromMs = parseTime(filter.from, Number.NEGATIVE_INFINITY, "from");
  const toMs = parseTime(filter.to, Number.POSITIVE_INFINITY, "to");
  const kinds = filter.kinds !== undefined && filter.kinds.length > 0 ? filter.kinds : null;
  const kindNeedles = kinds?.map((kind) => `"kind":${JSON.stringify(kind)}`) ?? null;
  const values = [filter.client, filter.server, filter.tool, filter.decision, filter.runId];
  const valueNeedles = values.flatMap((v) => (v === undefined ? [] : [JSON.stringify(v)]));
  // The line holds text JSON-escaped ("a \"b\"" for a "b"): look for both spellings.
  const text = filter.text !== undefined && filter.text !== "" ? filter.text : null;
  const textNeedles =
    text === null
      ? null
      : [...new Set([text.toLowerCase(), JSON.stringify(text).slice(1, -1).toLowerCase()])];
  const empty =
    fromMs === Number.NEGATIVE_INFINITY &&
    toMs === Number.POSITIVE_INFINITY &&
    kinds === null &&
    valueNeedles.length === 0 &&
    text === null;

  return {
    fromMs,
    toMs,
    empty,
    line(line) {
      if (kindNeedles !== null && !kindNeedles.some((needle) => line.includes(needle))) {
        return false;
      }
      if (!valueNeedles.every((needle) => line.includes(needle))) return false;
      if (textNeedles !== null) {
        const lower = line.toLowerCase();
        if (!textNeedles.some((needle) => lower.includes(needle))) return false;
      }
      return true;
    },
    entry(entry) {
      return entryMatchesFields(entry, filter, { fromMs, toMs });
    },
  };
}

/**
 * Entries matching `filter`, newest first, `page.limit` at a time (default
 * AUDIT_LIMITS.queryDefaultLimit, at most queryMaxLimit). Lines that do not parse or fail the
 * schema are left out here; verify is what reports them.
 */
export async function queryAudit(
  dir: string,
  filter: AuditFilter = {},
  page: AuditPage = {},
): Promise<AuditQueryResult> {
  const limit = clampLimit(page.limit);
  const before = page.before ?? Number.POSITIVE_INFINITY;
  const compiled = compileFilter(filter);
  const found: AuditEntry[] = [];
  // One more than asked tells whether there is a next page.
  for await (const entry of newestFirst(dir, compiled, before)) {
    found.push(entry);
    if (found.length > limit) break;
  }
  const entries = found.slice(0, limit);
  const nextBefore = found.length > limit ? (entries.at(-1)?.seq ?? null) : null;
  return { entries, nextBefore };
}

/**
 * One run for the detail panel: its run_started, its calls in the order they were logged,
 * and its run_finished (null while it is still running). Null when nothing of the run is in
 * the log (never ran, or removed by retention).
 */
export async function getAuditRun(dir: string, runId: string): Promise<AuditRunDetail | null> {
  const compiled = compileFilter({
    runId,
    kinds: ["run_started", "call", "run_finished", "run_abandoned"],
  });
  let started: AuditRunDetail["started"] = null;
  let finished: AuditRunDetail["finished"] = null;
  let abandoned: AuditRunDetail["abandoned"] = null;
  const calls: CallEntry[] = [];
  for await (const entry of newestFirst(dir, compiled, Number.POSITIVE_INFINITY)) {
    if (entry.kind === "call") calls.push(entry);
    else if (entry.kind === "run_finished") finished ??= entry;
    else if (entry.kind === "run_abandoned") abandoned ??= entry;
    else if (entry.kind === "run_started") {
      started = entry;
      break;
    }
  }
  if (started === null && finished === null && calls.length === 0) return null;
  return { started, calls: calls.reverse(), finished, abandoned };
}

async function* newestFirst(
  dir: string,
  filter: CompiledFilter,
  before: number,
): AsyncGenerator<AuditEntry> {
  const files = await listAuditFiles(dir);
  // Timestamps never go back by more than the skew verify allows, so once a line is that far
  // before `from`, nothing older can match.
  const stopBelowMs = filter.fromMs - AUDIT_LIMITS.clockSkewMs;
  for (let index = files.length - 1; index >= 0; index -= 1) {
    const file = files[index];
    if (file === undefined || file.firstSeq >= before) continue;
    try {
      for await (const { bytes } of linesBackward(file.path)) {
        const header = HEADER.exec(bytes.toString("latin1", 0, 96));
        if (header !== null) {
          if (Number(header[1]) >= before) continue;
          const ms = Date.parse(header[2] ?? "");
          if (ms < stopBelowMs) return;
          if (ms >= filter.toMs) continue;
        }
        const text = bytes.toString("utf8");
        if (!filter.line(text)) continue;
        const entry = parseEntry(text);
        if (entry === null || entry.seq >= before || !filter.entry(entry)) continue;
        yield entry;
      }
    } catch (error) {
      // Retention may delete a file between listing and reading it: it had nothing to keep.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

export function parseEntry(text: string): AuditEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = auditEntrySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return AUDIT_LIMITS.queryDefaultLimit;
  return Math.min(AUDIT_LIMITS.queryMaxLimit, Math.max(1, Math.floor(limit)));
}

function parseTime(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`"${name}" is not a date: ${value}`);
  return ms;
}
