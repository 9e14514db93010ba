// A long list the host serves in pages (servers, clients, private-data mode), kept live. The
// first page comes from the list request and then from every changed event (which carries the
// first page, never the whole list); "Show more" adds the next page. When the first page is
// replaced, the pages already shown are asked for again, so what the user opened stays open.
import { useCallback, useEffect, useRef, useState } from "react";
import type { ApiError, ApiParams, ApiResult } from "../../../shared/api/api-contract.js";
import { pagesFrom, type PageRequest } from "../../../shared/api/list-pages.js";
import { useApi, useLiveList, type ReplacingEvent } from "./hooks.js";

type PagedChannel = "servers.list" | "clients.list" | "taint.list";
type ItemOf<C extends PagedChannel> = ApiResult<C>["items"][number];

export interface PagedList<C extends PagedChannel> {
  /** The first page as the host last sent it (servers: with the count of failed ones). */
  first: ApiResult<C> | undefined;
  /** Every item shown: the first page and those added by "Show more". */
  items: ItemOf<C>[] | undefined;
  /** How many the whole list holds. */
  total: number;
  /** Whether items past those shown exist. */
  hasMore: boolean;
  loadMore: () => void;
  loadingMore: boolean;
  error: ApiError | null;
  reload: () => void;
  /** Replace the first page (with the answer of a call that changed the list). */
  setData: (page: ApiResult<C>) => void;
}

export function usePagedList<C extends PagedChannel, E extends ReplacingEvent<C>>(
  channel: C,
  event: E,
): PagedList<C> {
  const api = useApi();
  const live = useLiveList(channel, event);
  const first = live.data;
  const [more, setMore] = useState<{ items: ItemOf<C>[]; next: number | null }>({
    items: [],
    next: null,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiError | null>(null);
  const generation = useRef(0);
  const shownMore = useRef(0);
  shownMore.current = more.items.length;

  const request = useCallback<PageRequest<ItemOf<C>>>(
    async ({ after }) => await api.request(channel, { after } as ApiParams<C>),
    [api, channel],
  );

  // A new first page: the extra pages shown are asked for again, as many items as before.
  useEffect(() => {
    const id = ++generation.current;
    const want = shownMore.current;
    if (!first || want === 0 || first.next === null) {
      setMore({ items: [], next: null });
      return;
    }
    void pagesFrom(request, first.next, want).then((response) => {
      if (generation.current !== id) return;
      if (response.ok) setMore(response.value);
      else setMoreError(response.error);
    });
  }, [first, request]);

  const next = more.items.length > 0 ? more.next : (first?.next ?? null);
  const loadMore = useCallback(() => {
    if (next === null || loadingMore) return;
    const id = generation.current;
    setLoadingMore(true);
    void pagesFrom(request, next, 1).then((response) => {
      setLoadingMore(false);
      if (generation.current !== id) return;
      if (response.ok) {
        setMoreError(null);
        setMore((m) => ({
          items: [...m.items, ...response.value.items],
          next: response.value.next,
        }));
      } else setMoreError(response.error);
    });
  }, [next, loadingMore, request]);

  return {
    first,
    items: first ? [...(first.items as ItemOf<C>[]), ...more.items] : undefined,
    total: first?.total ?? 0,
    hasMore: next !== null,
    loadMore,
    loadingMore,
    error: live.error ?? moreError,
    reload: live.reload,
    setData: live.setData,
  };
}
