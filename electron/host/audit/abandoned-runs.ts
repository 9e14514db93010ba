import type { AuditEntryInput } from "../../../shared/audit-entry.js";
import { linesBackward, listAuditFiles } from "./audit-files.js";

/**
 * At start, runs started this long before the log's newest entry (or later) with no end are
 * written off as `run_abandoned`: far over the longest run (a 90 s deadline, a 60 s wait in
 * the queue), so a run in flight at a crash is always inside it.
 */
export const AUDIT_ABANDONED_SCAN_WINDOW_MS = 10 * 60_000;

/** ...and at most this many of the newest entries are read for it, whatever their times. */
export const AUDIT_ABANDONED_SCAN_MAX_ENTRIES = 100_000;

type RunAbandoned = Extract<AuditEntryInput, { kind: "run_abandoned" }>;

interface Seen {
  kind?: unknown;
  runId?: unknown;
  client?: unknown;
  seq?: unknown;
  ts?: unknown;
}

/**
 * The runs that started and never ended: a crash or a kill of the app leaves their run_started
 * without a run_finished. Read from the newest entry back, over the window any run in flight at
 * the end of the log must have started in (AUDIT_ABANDONED_SCAN_WINDOW_MS), so a start
 * costs the same however long the log is. A run already written off is not written off again.
 */
export async function findAbandonedRuns(
  dir: string,
  options: { windowMs?: number; maxEntries?: number } = {},
): Promise<RunAbandoned[]> {
  const windowMs = options.windowMs ?? AUDIT_ABANDONED_SCAN_WINDOW_MS;
  const maxEntries = options.maxEntries ?? AUDIT_ABANDONED_SCAN_MAX_ENTRIES;
  const ended = new Set<string>();
  const abandoned: RunAbandoned[] = [];
  let newestMs: number | null = null;
  let read = 0;
  const files = await listAuditFiles(dir);
  for (const file of files.reverse()) {
    for await (const line of linesBackward(file.path)) {
      if (++read > maxEntries) return abandoned.reverse();
      let entry: Seen;
      try {
        entry = JSON.parse(line.bytes.toString("utf8")) as Seen;
      } catch {
        // verify names a broken line; it says nothing about runs.
        continue;
      }
      if (typeof entry !== "object" || entry === null) continue;
      const at = typeof entry.ts === "string" ? Date.parse(entry.ts) : Number.NaN;
      if (!Number.isNaN(at)) {
        newestMs ??= at;
        if (at < newestMs - windowMs) return abandoned.reverse();
      }
      if (typeof entry.runId !== "string") continue;
      if (entry.kind === "run_finished" || entry.kind === "run_abandoned") {
        ended.add(entry.runId);
      } else if (entry.kind === "run_started" && !ended.has(entry.runId)) {
        abandoned.push({
          kind: "run_abandoned",
          runId: entry.runId,
          client: typeof entry.client === "string" ? entry.client : "",
          reason: "the app stopped",
          startedSeq: typeof entry.seq === "number" && entry.seq > 0 ? entry.seq : 0,
        });
      }
    }
  }
  return abandoned.reverse();
}
