// Reading the log back for the audit view: newest first, by pages, without loading it whole.
// With an index (audit-index.ts) only the entries it points at are read; without one, or when
// it disagrees with the log, the log is scanned. Lines are written by JSON.stringify, so a
// value a filter asks for appears in a matching line exactly as JSON.stringify spells it: in a
// scan, a substring test on the raw line rules most lines out before any of them is parsed.
import type { AuditEntry, CallEntry } from "../../../shared/audit-entry.js";
import type {
  AuditFilter,
  AuditPage,
  AuditQueryResult,
  AuditRunDetail,
} from "../../../shared/audit-query-types.js";
import { linesBackward, listAuditFiles, AUDIT_CLOCK_SKEW_MS } from "./audit-files.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";
import { compileFilter, parseEntry, type CompiledFilter } from "./audit-filter-compile.js";
import type { AuditIndex } from "./audit-index.js";
import { indexedNewestFirst, StaleIndexError } from "./audit-index-query.js";

export { compileFilter, parseEntry, type CompiledFilter } from "./audit-filter-compile.js";
import { MiB } from "../util/units.js";

export const AUDIT_QUERY_DEFAULT_LIMIT = 100;

/**
 * A page of audit.query ends once its entries pass this many characters as JSON (or at its
 * limit): 1,000 entries with 16 KiB of code each would not fit one API answer.
 */
export const AUDIT_QUERY_PAGE_MAX_CHARS = 4 * MiB;

// The writer puts seq and ts first: reading them needs no parse of the rest.
const HEADER = /^\{"seq":(\d+),"ts":"([^"]+)"/;

/**
 * Entries matching `filter`, newest first, `page.limit` at a time (default
 * AUDIT_QUERY_DEFAULT_LIMIT, at most queryMaxLimit). Lines that do not parse or fail the
 * schema are left out here; verify is what reports them.
 */
export async function queryAudit(
  dir: string,
  filter: AuditFilter = {},
  page: AuditPage = {},
  index: AuditIndex | null = null,
): Promise<AuditQueryResult> {
  const limit = clampLimit(page.limit);
  const before = page.before ?? Number.POSITIVE_INFINITY;
  const compiled = compileFilter(filter);
  // A page also ends once its entries pass this size as JSON, so it always fits one API
  // answer (a counter that starts again if collect starts over from the log itself).
  let chars = 0;
  let counted = 0;
  let bySize = false;
  const enough = (got: readonly AuditEntry[]): boolean => {
    if (got.length < counted) [chars, counted] = [0, 0];
    for (; counted < got.length; counted += 1) chars += JSON.stringify(got[counted]).length;
    bySize = chars >= AUDIT_QUERY_PAGE_MAX_CHARS;
    // One more than asked tells whether there is a next page.
    return got.length > limit || bySize;
  };
  const found = await collect(dir, compiled, before, index, enough);
  const entries = found.slice(0, limit);
  const more = found.length > limit || bySize;
  const nextBefore = more ? (entries.at(-1)?.seq ?? null) : null;
  return { entries, nextBefore };
}

/**
 * One run for the detail panel: its run_started, its calls in the order they were logged,
 * and its run_finished (null while it is still running). Null when nothing of the run is in
 * the log (never ran, or removed by retention).
 */
export async function getAuditRun(
  dir: string,
  runId: string,
  index: AuditIndex | null = null,
): Promise<AuditRunDetail | null> {
  const compiled = compileFilter({
    runId,
    kinds: ["run_started", "call", "run_finished", "run_abandoned"],
  });
  let started: AuditRunDetail["started"] = null;
  let finished: AuditRunDetail["finished"] = null;
  let abandoned: AuditRunDetail["abandoned"] = null;
  const calls: CallEntry[] = [];
  const found = await collect(
    dir,
    compiled,
    Number.POSITIVE_INFINITY,
    index,
    (got) =>
      // Newest first: the run's start is the last of its entries to come.
      got.at(-1)?.kind === "run_started",
  );
  for (const entry of found) {
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

/** Matches newest first until `enough`; through the index when there is one and it agrees with the log. */
async function collect(
  dir: string,
  filter: CompiledFilter,
  before: number,
  index: AuditIndex | null,
  enough: (found: readonly AuditEntry[]) => boolean,
): Promise<AuditEntry[]> {
  if (filter.never) return [];
  // While the index is being built at start, the log answers (as it would without one).
  if (index !== null && !index.building) {
    const found: AuditEntry[] = [];
    try {
      for await (const entry of indexedNewestFirst(index, filter, before)) {
        found.push(entry);
        if (enough(found)) break;
      }
      return found;
    } catch (error) {
      // The index pointed at a line that is not the one it recorded (it has been dropped, and
      // is rebuilt on next use), or could not be read: this answer comes from the log itself.
      if (!(error instanceof StaleIndexError)) index.report(error);
    }
  }
  const found: AuditEntry[] = [];
  for await (const entry of newestFirst(dir, filter, before)) {
    found.push(entry);
    if (enough(found)) break;
  }
  return found;
}

async function* newestFirst(
  dir: string,
  filter: CompiledFilter,
  before: number,
): AsyncGenerator<AuditEntry> {
  const files = await listAuditFiles(dir);
  // Timestamps never go back by more than the skew verify allows, so once a line is that far
  // before `from`, nothing older can match.
  const stopBelowMs = filter.fromMs - AUDIT_CLOCK_SKEW_MS;
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

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return AUDIT_QUERY_DEFAULT_LIMIT;
  return Math.min(AUDIT_LIMITS.queryMaxLimit, Math.max(1, Math.floor(limit)));
}
