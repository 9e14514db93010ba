// Audit log: live tail, filters, a virtualised list paged as you scroll, run details,
// chain verification and export.
import { useVirtualizer } from "@tanstack/react-virtual";
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
} from "react";
import type { ApiError, AuditFilter } from "../../../shared/api/api-contract.js";
import type { AuditEntry } from "../../../shared/audit-entry.js";
import { useApi, useEvent, useLiveList, useMutation, useRequest } from "../api/hooks.js";
import { Badge } from "../components/badge.js";
import { SelectField } from "../components/field.js";
import { EmptyState, ErrorState, Loading } from "../components/states.js";
import { clientOf, kindLabel, matchesFilter, runIdOf, summaryOf, targetOf } from "../lib/audit.js";
import { formatDateTime, formatLogTime } from "../lib/format.js";
import { navigate, useRoute } from "../lib/router.js";
import { AuditDetail, DecisionBadge } from "./audit/audit-detail.js";
import {
  AuditFilters,
  EMPTY_FILTERS,
  toAuditFilter,
  type FilterFields,
} from "./audit/audit-filters.js";

const ROW_HEIGHT = 36;
const FIRST_PAGE = 200;
const NEXT_PAGE = 500;
/** Load the next page when this close to the end of what is loaded. */
const PREFETCH_ROWS = 60;
/** Live entries held while paused, at most. */
const HELD_MAX = 10_000;

interface ListState {
  entries: AuditEntry[];
  nextBefore: number | null;
  /** "first" while the first page of a filter loads. */
  loading: "first" | "more" | null;
  error: ApiError | null;
}

/** Index of `seq` in a newest-first list, or -1. */
function indexOfSeq(entries: AuditEntry[], seq: number): number {
  let lo = 0;
  let hi = entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = entries[mid]!.seq;
    if (s === seq) return mid;
    if (s > seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function AuditPage() {
  const api = useApi();
  const route = useRoute();
  const selectedSeq = route.params.has("seq") ? Number(route.params.get("seq")) : null;
  const selectedRun = route.params.get("run");

  const [fields, setFields] = useState<FilterFields>(EMPTY_FILTERS);
  const [runFilter, setRunFilter] = useState<string | null>(null);
  const filter = useMemo(() => toAuditFilter(fields, runFilter), [fields, runFilter]);
  const filterKey = JSON.stringify(filter);

  const [list, setList] = useState<ListState>({
    entries: [],
    nextBefore: null,
    loading: "first",
    error: null,
  });
  const listRef = useRef(list);
  listRef.current = list;
  const filterRef = useRef<AuditFilter>(filter);
  const generation = useRef(0);

  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const [held, setHeld] = useState<AuditEntry[]>([]);
  const incoming = useRef<AuditEntry[]>([]);
  const flushScheduled = useRef(false);
  const anchorRows = useRef(0);
  const [freshFrom, setFreshFrom] = useState<number | null>(null);

  const scrollRef = useRef<HTMLDivElement>(null);

  // First page for the current filter.
  const loadFirst = useCallback(async () => {
    const id = ++generation.current;
    filterRef.current = JSON.parse(filterKey) as AuditFilter;
    incoming.current = [];
    setHeld([]);
    setList({ entries: [], nextBefore: null, loading: "first", error: null });
    const response = await api.request("audit.query", {
      filter: filterRef.current,
      limit: FIRST_PAGE,
    });
    if (id !== generation.current) return;
    if (!response.ok) {
      setList({ entries: [], nextBefore: null, loading: null, error: response.error });
      return;
    }
    // Live entries that came in while the page loaded, and are newer than it.
    const top = response.value.entries[0]?.seq ?? 0;
    const early = incoming.current.filter((e) => e.seq > top).sort((a, b) => b.seq - a.seq);
    incoming.current = [];
    setList({
      entries: [...early, ...response.value.entries],
      nextBefore: response.value.nextBefore,
      loading: null,
      error: null,
    });
    scrollRef.current?.scrollTo({ top: 0 });
  }, [api, filterKey]);

  useEffect(() => {
    void loadFirst();
  }, [loadFirst]);

  const loadMore = useCallback(async () => {
    const current = listRef.current;
    if (current.loading || current.nextBefore === null) return;
    const id = generation.current;
    setList((s) => ({ ...s, loading: "more", error: null }));
    const response = await api.request("audit.query", {
      filter: filterRef.current,
      limit: NEXT_PAGE,
      before: current.nextBefore,
    });
    if (id !== generation.current) return;
    if (!response.ok) {
      setList((s) => ({ ...s, loading: null, error: response.error }));
      return;
    }
    setList((s) => {
      const last = s.entries[s.entries.length - 1]?.seq ?? Number.POSITIVE_INFINITY;
      const older = response.value.entries.filter((e) => e.seq < last);
      return {
        entries: s.entries.concat(older),
        nextBefore: response.value.nextBefore,
        loading: null,
        error: null,
      };
    });
  }, [api]);

  // Live tail: batch what arrives within a frame, keep the view still if scrolled down.
  const flush = useCallback(() => {
    flushScheduled.current = false;
    if (listRef.current.loading === "first") return;
    const batch = incoming.current.sort((a, b) => b.seq - a.seq);
    incoming.current = [];
    if (batch.length === 0) return;
    if (pausedRef.current) {
      setHeld((h) => [...batch, ...h].slice(0, HELD_MAX));
      return;
    }
    setList((s) => {
      const top = s.entries[0]?.seq ?? 0;
      const fresh = batch.filter((e) => e.seq > top);
      if (fresh.length === 0) return s;
      anchorRows.current += fresh.length;
      return { ...s, entries: [...fresh, ...s.entries] };
    });
    setFreshFrom((f) => f ?? batch[batch.length - 1]!.seq);
  }, []);

  useEvent("audit.entry", (entry) => {
    if (!matchesFilter(entry, filterRef.current)) return;
    incoming.current.push(entry);
    if (!flushScheduled.current) {
      flushScheduled.current = true;
      requestAnimationFrame(flush);
    }
  });

  useEffect(() => {
    if (freshFrom === null) return;
    const timer = setTimeout(() => setFreshFrom(null), 2500);
    return () => clearTimeout(timer);
  }, [freshFrom]);

  const virtualizer = useVirtualizer({
    count: list.entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => list.entries[index]?.seq ?? index,
  });

  // Rows added on top push the content down: move the scroll by as much, unless at the top.
  useLayoutEffect(() => {
    const added = anchorRows.current;
    anchorRows.current = 0;
    const el = scrollRef.current;
    if (added > 0 && el && el.scrollTop > 0) el.scrollTop += added * ROW_HEIGHT;
  }, [list.entries]);

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length > 0 ? items[items.length - 1]!.index : -1;
  useEffect(() => {
    if (
      list.loading === null &&
      list.error === null &&
      list.nextBefore !== null &&
      lastIndex >= list.entries.length - PREFETCH_ROWS
    ) {
      void loadMore();
    }
  }, [lastIndex, list.entries.length, list.loading, list.error, list.nextBefore, loadMore]);

  const selectedIndex = selectedSeq !== null ? indexOfSeq(list.entries, selectedSeq) : -1;
  const selectedEntry = selectedIndex >= 0 ? list.entries[selectedIndex]! : null;
  const [detailFocus, setDetailFocus] = useState(0);

  const select = useCallback((entry: AuditEntry | null) => {
    if (!entry) {
      navigate("audit", {}, { replace: true });
      return;
    }
    navigate("audit", { seq: String(entry.seq), run: runIdOf(entry) }, { replace: true });
  }, []);

  const moveTo = (index: number) => {
    const entries = list.entries;
    if (entries.length === 0) return;
    const clamped = Math.max(0, Math.min(entries.length - 1, index));
    select(entries[clamped]!);
    virtualizer.scrollToIndex(clamped, { align: "auto" });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const pageRows = Math.max(
      1,
      Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1,
    );
    const at = selectedIndex;
    switch (event.key) {
      case "ArrowDown":
        moveTo(at < 0 ? 0 : at + 1);
        break;
      case "ArrowUp":
        moveTo(at < 0 ? 0 : at - 1);
        break;
      case "PageDown":
        moveTo(at < 0 ? pageRows : at + pageRows);
        break;
      case "PageUp":
        moveTo(at - pageRows);
        break;
      case "Home":
        moveTo(0);
        break;
      case "End":
        moveTo(list.entries.length - 1);
        break;
      case "Enter":
        if (selectedEntry || selectedRun) setDetailFocus((n) => n + 1);
        break;
      case "Escape":
        if (selectedSeq !== null || selectedRun) select(null);
        else return;
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const pause = useCallback(() => setPaused(true), []);
  const heldRef = useRef(held);
  heldRef.current = held;
  const resume = useCallback(() => {
    setPaused(false);
    const batch = heldRef.current;
    if (batch.length === 0) return;
    setHeld([]);
    setList((s) => {
      const top = s.entries[0]?.seq ?? 0;
      const fresh = batch.filter((e) => e.seq > top);
      anchorRows.current += fresh.length;
      return { ...s, entries: [...fresh, ...s.entries] };
    });
  }, []);

  const servers = useLiveList("servers.list", "servers.changed");
  const clients = useLiveList("clients.list", "clients.changed");
  const suggestions = useMemo(() => {
    const clientNames = new Set((clients.data ?? []).map((c) => c.name));
    for (const entry of list.entries.slice(0, 2000)) {
      const c = clientOf(entry);
      if (c) clientNames.add(c);
    }
    return {
      clients: [...clientNames].sort(),
      servers: (servers.data ?? []).map((s) => s.name).sort(),
    };
  }, [clients.data, servers.data, list.entries]);

  const clearRunFilter = useCallback(() => setRunFilter(null), []);
  const onFilterChange = useCallback((next: FilterFields) => {
    setFields((prev) => (JSON.stringify(prev) === JSON.stringify(next) ? prev : next));
  }, []);

  const detailOpen = selectedRun !== null || selectedSeq !== null;
  const activeId = selectedEntry ? `audit-row-${selectedEntry.seq}` : undefined;
  const filtered = filterKey !== "{}";

  return (
    <div className="page page-audit">
      <div className="audit-toolbar">
        <LiveControl paused={paused} held={held.length} onPause={pause} onResume={resume} />
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
        <div className="audit-list-wrap">
          <div className="audit-list-header" aria-hidden="true">
            <span>Time</span>
            <span>Kind</span>
            <span className="col-client">Client</span>
            <span className="col-target">Server › tool</span>
            <span>Decision</span>
            <span className="col-summary">Summary</span>
          </div>
          {list.loading === "first" ? (
            <div className="audit-list-state">
              <Loading label="Loading the audit log…" />
            </div>
          ) : list.error && list.entries.length === 0 ? (
            <div className="audit-list-state">
              <ErrorState error={list.error} onRetry={() => void loadFirst()} />
            </div>
          ) : list.entries.length === 0 ? (
            <div className="audit-list-state">
              <EmptyState
                title={filtered ? "No entries match these filters" : "Nothing logged yet"}
              >
                {filtered
                  ? "Try a wider time range or clear some filters."
                  : "Runs, tool calls and changes appear here as they happen."}
              </EmptyState>
            </div>
          ) : (
            <div
              ref={scrollRef}
              className="audit-list"
              role="listbox"
              aria-label="Audit entries"
              aria-activedescendant={activeId}
              tabIndex={0}
              onKeyDown={onKeyDown}
            >
              <div className="audit-list-inner" style={{ height: virtualizer.getTotalSize() }}>
                {items.map((item) => {
                  const entry = list.entries[item.index]!;
                  return (
                    <AuditRow
                      key={item.key}
                      entry={entry}
                      top={item.start}
                      index={item.index}
                      total={list.entries.length}
                      selected={entry.seq === selectedSeq}
                      fresh={freshFrom !== null && entry.seq >= freshFrom}
                      onSelect={select}
                    />
                  );
                })}
              </div>
            </div>
          )}
          <div
            className={`audit-list-footer${list.entries.length === 0 && list.loading !== "more" ? " is-empty" : ""}`}
            role="status"
          >
            {list.entries.length > 0 ? (
              <>
                {list.entries.length.toLocaleString()} entr{list.entries.length === 1 ? "y" : "ies"}{" "}
                {list.nextBefore !== null ? "loaded — scroll for older" : "— all loaded"}
              </>
            ) : null}
            {list.loading === "more" ? <Loading inline label="Loading older entries…" /> : null}
            {list.error && list.entries.length > 0 ? (
              <span className="footer-error">
                {list.error.message}{" "}
                <button type="button" className="link-button" onClick={() => void loadMore()}>
                  Retry
                </button>
              </span>
            ) : null}
          </div>
        </div>
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

const AuditRow = memo(function AuditRow(props: {
  entry: AuditEntry;
  top: number;
  index: number;
  total: number;
  selected: boolean;
  fresh: boolean;
  onSelect: (entry: AuditEntry) => void;
}) {
  const { entry } = props;
  const refused = entry.kind === "call" && entry.decision !== "allowed";
  return (
    <div
      id={`audit-row-${entry.seq}`}
      role="option"
      aria-selected={props.selected}
      aria-posinset={props.index + 1}
      aria-setsize={props.total}
      className={`audit-row kind-${entry.kind}${props.selected ? " is-selected" : ""}${props.fresh ? " is-fresh" : ""}${refused ? " is-refused" : ""}`}
      style={{ transform: `translateY(${props.top}px)`, height: ROW_HEIGHT }}
      onClick={() => props.onSelect(entry)}
    >
      <span className="col-time" title={formatDateTime(entry.ts)}>
        {formatLogTime(entry.ts)}
      </span>
      <span className="col-kind">{kindLabel(entry.kind)}</span>
      <span className="col-client">{clientOf(entry) ?? ""}</span>
      <span className="col-target">{targetOf(entry)}</span>
      <span className="col-decision">
        {entry.kind === "call" ? <DecisionBadge decision={entry.decision} /> : null}
      </span>
      <span className="col-summary">{summaryOf(entry)}</span>
    </div>
  );
});

const LiveControl = memo(function LiveControl(props: {
  paused: boolean;
  held: number;
  onPause: () => void;
  onResume: () => void;
}) {
  return (
    <div className="live-control">
      <span className={`live-dot${props.paused ? " is-paused" : ""}`} aria-hidden="true" />
      <span className="live-text" role="status">
        {props.paused
          ? props.held > 0
            ? `Paused · ${props.held.toLocaleString()} new`
            : "Paused"
          : "Live"}
      </span>
      <button
        type="button"
        className="button button-small"
        onClick={props.paused ? props.onResume : props.onPause}
      >
        {props.paused ? "Resume live" : "Pause live"}
      </button>
    </div>
  );
});

const VerifyControl = memo(function VerifyControl() {
  const verify = useRequest("audit.verify", {});
  const data = verify.data;
  let status;
  if (verify.loading) status = <Loading inline label="Verifying the chain…" />;
  else if (verify.error) status = <Badge tone="bad">{verify.error.message}</Badge>;
  else if (data?.ok) {
    status = (
      <Badge tone="ok" title={data.note ?? undefined}>
        Chain verified: {data.entries.toLocaleString()} entries
      </Badge>
    );
  } else if (data && !data.ok) {
    const where =
      data.firstBad.seq !== null
        ? `seq ${data.firstBad.seq}`
        : `line ${data.firstBad.line} of ${data.firstBad.file}`;
    status = (
      <Badge tone="bad" title={`${data.firstBad.file}, line ${data.firstBad.line}`}>
        Chain broken at {where}: {data.firstBad.problem}
      </Badge>
    );
  }
  return (
    <div className="verify" role="status" aria-label="Chain verification">
      {status}
      {data?.note ? <span className="muted small">{data.note}</span> : null}
      <button
        type="button"
        className="button button-small"
        onClick={verify.reload}
        disabled={verify.loading}
      >
        Verify
      </button>
    </div>
  );
});

const ExportControl = memo(function ExportControl(props: { filter: AuditFilter }) {
  const [format, setFormat] = useState<"jsonl" | "csv">("jsonl");
  const exporter = useMutation("audit.export");
  const run = async () => {
    const response = await exporter.run({ format, filter: props.filter });
    if (!response.ok) return;
    const type = format === "csv" ? "text/csv;charset=utf-8" : "application/x-ndjson;charset=utf-8";
    const url = URL.createObjectURL(new Blob([response.value.text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = response.value.fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <div className="export">
      <SelectField
        label="Format"
        value={format}
        onChange={(v) => setFormat(v === "csv" ? "csv" : "jsonl")}
        fieldClassName="field-inline"
        options={[
          { value: "jsonl", label: "JSONL" },
          { value: "csv", label: "CSV" },
        ]}
      />
      <button
        type="button"
        className="button button-small"
        onClick={() => void run()}
        disabled={exporter.busy}
      >
        {exporter.busy ? "Exporting…" : "Export"}
      </button>
      {exporter.error ? (
        <span className="field-error" role="alert">
          {exporter.error.message}
        </span>
      ) : null}
    </div>
  );
});
