// The audit page's data: the entries matching a filter, newest first, paged from the host
// as the list asks for older ones, with live entries added on top (or held while paused).
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { ApiError, AuditFilter } from "../../../../shared/api/api-contract.js";
import type { AuditEntry } from "../../../../shared/audit-entry.js";
import { useApi, useEvent } from "../../api/hooks.js";
import { matchesFilter } from "../../lib/audit.js";

const FIRST_PAGE = 200;
const NEXT_PAGE = 500;
/** Live entries held while paused, at most. */
const HELD_MAX = 10_000;
/** How long rows that came in live stay highlighted. */
const FRESH_MS = 2500;

export interface AuditListState {
  entries: AuditEntry[];
  nextBefore: number | null;
  /** "first" while the first page of a filter loads. */
  loading: "first" | "more" | null;
  error: ApiError | null;
}

export interface AuditLog {
  list: AuditListState;
  /** Load the first page again (after an error). */
  reload: () => void;
  /** Load the next page of older entries, unless one is loading or all are loaded. */
  loadMore: () => void;
  paused: boolean;
  /** Live entries held while paused. */
  heldCount: number;
  pause: () => void;
  resume: () => void;
  /** Entries from this seq up came in live a moment ago, or null. */
  freshFrom: number | null;
  /**
   * Rows added on top since the list last read it: the list moves its scroll by as many
   * rows so that what the user looks at stays still. The list resets it to 0.
   */
  addedOnTop: RefObject<number>;
}

/**
 * Keeps the entries matching `filter` (compared by value). `onFirstPage` runs when the first
 * page of a filter has arrived (the list scrolls back to the top).
 */
export function useAuditLog(filter: AuditFilter, onFirstPage: () => void): AuditLog {
  const api = useApi();
  const filterKey = JSON.stringify(filter);
  const [list, setList] = useState<AuditListState>({
    entries: [],
    nextBefore: null,
    loading: "first",
    error: null,
  });
  const listRef = useRef(list);
  listRef.current = list;
  const filterRef = useRef<AuditFilter>(filter);
  const generation = useRef(0);
  const onFirstPageRef = useRef(onFirstPage);
  onFirstPageRef.current = onFirstPage;

  const [paused, setPaused] = useState(false);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const [held, setHeld] = useState<AuditEntry[]>([]);
  const heldRef = useRef(held);
  heldRef.current = held;
  const incoming = useRef<AuditEntry[]>([]);
  const flushScheduled = useRef(false);
  const addedOnTop = useRef(0);
  const [freshFrom, setFreshFrom] = useState<number | null>(null);

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
    onFirstPageRef.current();
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

  // Live tail: batch what arrives within a frame.
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
      addedOnTop.current += fresh.length;
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
    const timer = setTimeout(() => setFreshFrom(null), FRESH_MS);
    return () => clearTimeout(timer);
  }, [freshFrom]);

  const pause = useCallback(() => setPaused(true), []);
  const resume = useCallback(() => {
    setPaused(false);
    const batch = heldRef.current;
    if (batch.length === 0) return;
    setHeld([]);
    setList((s) => {
      const top = s.entries[0]?.seq ?? 0;
      const fresh = batch.filter((e) => e.seq > top);
      addedOnTop.current += fresh.length;
      return { ...s, entries: [...fresh, ...s.entries] };
    });
  }, []);

  const reload = useCallback(() => void loadFirst(), [loadFirst]);
  const more = useCallback(() => void loadMore(), [loadMore]);

  return {
    list,
    reload,
    loadMore: more,
    paused,
    heldCount: held.length,
    pause,
    resume,
    freshFrom,
    addedOnTop,
  };
}
