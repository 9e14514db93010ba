// The audit entries as a virtualised listbox: only the rows in view are in the DOM, the
// keyboard moves the selection, and older pages are asked for before the end is reached.
import { useVirtualizer } from "@tanstack/react-virtual";
import {
  memo,
  useEffect,
  useLayoutEffect,
  useMemo,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
} from "react";
import type { AuditEntry } from "../../../../shared/audit-entry.js";
import { EmptyState, ErrorState, Loading } from "../../components/states.js";
import { clientOf, kindLabel, summaryOf, targetOf } from "../../lib/audit.js";
import { totalReceipt } from "../../../../shared/run-receipt.js";
import { formatDateTime, formatLogTime } from "../../lib/format.js";
import { totalReceiptText } from "../../lib/receipt-text.js";
import { DecisionBadge } from "./audit-detail.js";
import type { AuditLog } from "./use-audit-log.js";

const ROW_HEIGHT = 36;
/** Load the next page when this close to the end of what is loaded. */
const PREFETCH_ROWS = 60;

/** Index of `seq` in a newest-first list, or -1. */
export function indexOfSeq(entries: AuditEntry[], seq: number): number {
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

/** What the rows need to show and move the selection. */
interface SelectionProps {
  selectedSeq: number | null;
  /** Where `selectedSeq` is in the entries, or -1. */
  selectedIndex: number;
  selectedRun: string | null;
  onSelect: (entry: AuditEntry | null) => void;
  /** Enter: move the focus into the detail panel. */
  onFocusDetail: () => void;
  scrollRef: RefObject<HTMLDivElement | null>;
}

export function AuditList(
  props: SelectionProps & {
    log: Pick<AuditLog, "list" | "reload" | "loadMore" | "freshFrom" | "addedOnTop">;
    /** Some filter is set: the empty state says so. */
    filtered: boolean;
  },
) {
  const { list } = props.log;
  const { scrollRef, selectedIndex, onSelect } = props;
  const state = (content: ReactNode) => <div className="audit-list-state">{content}</div>;
  return (
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
        state(<Loading label="Loading the audit log…" />)
      ) : list.error && list.entries.length === 0 ? (
        state(<ErrorState error={list.error} onRetry={props.log.reload} />)
      ) : list.entries.length === 0 ? (
        state(
          <EmptyState
            title={props.filtered ? "No entries match these filters" : "Nothing logged yet"}
          >
            {props.filtered
              ? "Try a wider time range or clear some filters."
              : "Runs, tool calls and changes appear here as they happen."}
          </EmptyState>,
        )
      ) : (
        <AuditRows
          log={props.log}
          selectedSeq={props.selectedSeq}
          selectedIndex={selectedIndex}
          selectedRun={props.selectedRun}
          onSelect={onSelect}
          onFocusDetail={props.onFocusDetail}
          scrollRef={scrollRef}
        />
      )}
      <AuditListFooter log={props.log} />
    </div>
  );
}

function AuditRows(
  props: SelectionProps & {
    log: Pick<AuditLog, "list" | "loadMore" | "freshFrom" | "addedOnTop">;
  },
) {
  const { list, loadMore, freshFrom, addedOnTop } = props.log;
  const { scrollRef, selectedSeq, selectedIndex, selectedRun, onSelect } = props;

  const virtualizer = useVirtualizer({
    count: list.entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => list.entries[index]?.seq ?? index,
  });

  // Rows added on top push the content down: move the scroll by as much, unless at the top.
  useLayoutEffect(() => {
    const added = addedOnTop.current;
    addedOnTop.current = 0;
    const el = scrollRef.current;
    if (added > 0 && el && el.scrollTop > 0) el.scrollTop += added * ROW_HEIGHT;
  }, [list.entries, addedOnTop, scrollRef]);

  const items = virtualizer.getVirtualItems();
  const lastIndex = items.length > 0 ? items[items.length - 1]!.index : -1;
  useEffect(() => {
    if (
      list.loading === null &&
      list.error === null &&
      list.nextBefore !== null &&
      lastIndex >= list.entries.length - PREFETCH_ROWS
    ) {
      loadMore();
    }
  }, [lastIndex, list.entries.length, list.loading, list.error, list.nextBefore, loadMore]);

  const moveTo = (index: number) => {
    const entries = list.entries;
    if (entries.length === 0) return;
    const clamped = Math.max(0, Math.min(entries.length - 1, index));
    onSelect(entries[clamped]!);
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
        if (selectedIndex >= 0 || selectedRun) props.onFocusDetail();
        break;
      case "Escape":
        if (selectedSeq !== null || selectedRun) onSelect(null);
        else return;
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const selectedEntry = selectedIndex >= 0 ? list.entries[selectedIndex] : undefined;
  return (
    <div
      ref={scrollRef}
      className="audit-list"
      role="listbox"
      aria-label="Audit entries"
      aria-activedescendant={selectedEntry ? `audit-row-${selectedEntry.seq}` : undefined}
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
              onSelect={onSelect}
            />
          );
        })}
      </div>
    </div>
  );
}

function AuditListFooter(props: { log: Pick<AuditLog, "list" | "loadMore"> }) {
  const { list, loadMore } = props.log;
  const count = list.entries.length;
  // Over the entries loaded (and matching the filters), which the footer says it counts.
  const receipt = useMemo(() => totalReceipt(list.entries), [list.entries]);
  return (
    <div
      className={`audit-list-footer${count === 0 && list.loading !== "more" ? " is-empty" : ""}`}
      role="status"
    >
      {count > 0 ? (
        <>
          {count.toLocaleString()} entr{count === 1 ? "y" : "ies"}{" "}
          {list.nextBefore !== null ? "loaded — scroll for older" : "— all loaded"}
          {receipt !== null ? (
            <span className="audit-receipt-total" data-testid="receipt-total">
              {" · "}
              {totalReceiptText(receipt)}
            </span>
          ) : null}
        </>
      ) : null}
      {list.loading === "more" ? <Loading inline label="Loading older entries…" /> : null}
      {list.error && count > 0 ? (
        <span className="footer-error">
          {list.error.message}{" "}
          <button type="button" className="link-button" onClick={loadMore}>
            Retry
          </button>
        </span>
      ) : null}
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
