// Audit log: live tail, filters, a virtualised list paged as you scroll, run details,
// chain verification and export. The data lives in useAuditLog; this page wires the parts.
import { useCallback, useMemo, useRef, useState } from "react";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import { useLiveList } from "../api/hooks.js";
import { clientOf, runIdOf } from "../lib/audit.js";
import { navigate, useRoute } from "../lib/router.js";
import { AuditDetail } from "./audit/audit-detail.js";
import { ExportControl, LiveControl, VerifyControl } from "./audit/audit-controls.js";
import {
  AuditFilters,
  EMPTY_FILTERS,
  toAuditFilter,
  type FilterFields,
} from "./audit/audit-filters.js";
import { AuditList, indexOfSeq } from "./audit/audit-list.js";
import { useAuditLog } from "./audit/use-audit-log.js";

/** Entries read for client-name suggestions, at most. */
const SUGGESTION_ENTRIES = 2000;

function select(entry: AuditEntry | null): void {
  if (!entry) {
    navigate("audit", {}, { replace: true });
    return;
  }
  navigate("audit", { seq: String(entry.seq), run: runIdOf(entry) }, { replace: true });
}

/** Names to suggest in the filters: known clients and servers, and clients seen in the log. */
function useSuggestions(entries: AuditEntry[]) {
  const servers = useLiveList("servers.list", "servers.changed");
  const clients = useLiveList("clients.list", "clients.changed");
  return useMemo(() => {
    // The first pages: names past them are still found through the entries shown.
    const clientNames = new Set((clients.data?.items ?? []).map((c) => c.name));
    for (const entry of entries.slice(0, SUGGESTION_ENTRIES)) {
      const c = clientOf(entry);
      if (c) clientNames.add(c);
    }
    return {
      clients: [...clientNames].sort(),
      servers: (servers.data?.items ?? []).map((s) => s.name).sort(),
    };
  }, [clients.data, servers.data, entries]);
}

export function AuditPage() {
  const route = useRoute();
  const selectedSeq = route.params.has("seq") ? Number(route.params.get("seq")) : null;
  const selectedRun = route.params.get("run");

  const [fields, setFields] = useState<FilterFields>(EMPTY_FILTERS);
  const [runFilter, setRunFilter] = useState<string | null>(null);
  const filter = useMemo(() => toAuditFilter(fields, runFilter), [fields, runFilter]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const scrollToTop = useCallback(() => scrollRef.current?.scrollTo({ top: 0 }), []);
  const log = useAuditLog(filter, scrollToTop);
  const suggestions = useSuggestions(log.list.entries);

  const selectedIndex = selectedSeq !== null ? indexOfSeq(log.list.entries, selectedSeq) : -1;
  const selectedEntry = selectedIndex >= 0 ? log.list.entries[selectedIndex]! : null;
  const [detailFocus, setDetailFocus] = useState(0);
  const focusDetail = useCallback(() => setDetailFocus((n) => n + 1), []);

  const clearRunFilter = useCallback(() => setRunFilter(null), []);
  const onFilterChange = useCallback((next: FilterFields) => {
    setFields((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
  }, []);

  const detailOpen = selectedRun !== null || selectedSeq !== null;

  return (
    <div className="page page-audit">
      <div className="audit-toolbar">
        <LiveControl
          paused={log.paused}
          held={log.heldCount}
          onPause={log.pause}
          onResume={log.resume}
        />
        <div className="audit-toolbar-right">
          <VerifyControl />
          <ExportControl filter={filter} />
        </div>
      </div>

      <AuditFilters
        onChange={onFilterChange}
        suggestions={suggestions}
        runId={runFilter}
        onClearRun={clearRunFilter}
      />

      <div className={`audit-body${detailOpen ? " has-detail" : ""}`}>
        <AuditList
          log={log}
          filtered={JSON.stringify(filter) !== "{}"}
          selectedSeq={selectedSeq}
          selectedIndex={selectedIndex}
          selectedRun={selectedRun}
          onSelect={select}
          onFocusDetail={focusDetail}
          scrollRef={scrollRef}
        />
        {detailOpen ? (
          <AuditDetail
            entry={selectedEntry}
            runId={selectedRun}
            focusKey={detailFocus}
            onClose={() => {
              select(null);
              scrollRef.current?.focus();
            }}
            onOnlyThisRun={(runId) => setRunFilter(runId)}
          />
        ) : null}
      </div>
    </div>
  );
}
