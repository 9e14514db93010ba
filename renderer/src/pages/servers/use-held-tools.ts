// The tools of one server held for review, page by page over servers.held:
// the first page at once, more on demand (a hostile server can hold many big definitions),
// and from the first page again whenever the servers change (a review, a restart, a
// list_changed).
import { useCallback, useEffect, useRef, useState } from "react";
import type { ApiError } from "../../../../shared/api/api-contract.js";
import type { HeldToolView } from "../../../../shared/api/api-views.js";
import { useApi, useEvent } from "../../api/hooks.js";

export interface HeldToolsState {
  error: ApiError | null;
  data: HeldToolView[] | undefined;
  /** Where the next page starts, or null when every held tool is shown. */
  next: number | null;
  loadingMore: boolean;
  more: () => void;
  reload: () => void;
}

export function useHeldTools(name: string): HeldToolsState {
  const api = useApi();
  const [state, setState] = useState<{
    error: ApiError | null;
    data: HeldToolView[] | undefined;
    next: number | null;
  }>({ error: null, data: undefined, next: null });
  const [loadingMore, setLoadingMore] = useState(false);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const id = ++latest.current;
    void api.request("servers.held", { name }).then((response) => {
      if (latest.current !== id) return;
      setState((s) =>
        response.ok
          ? { error: null, data: response.value.held, next: response.value.next }
          : { ...s, error: response.error },
      );
    });
  }, [api, name, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEvent("servers.changed", reload);

  const after = state.next;
  const more = useCallback(() => {
    if (after === null) return;
    const id = latest.current;
    setLoadingMore(true);
    void api.request("servers.held", { name, after }).then((response) => {
      setLoadingMore(false);
      // A reload meanwhile starts from the first page again: this page is stale.
      if (latest.current !== id) return;
      setState((s) => {
        if (!response.ok) return { ...s, error: response.error };
        // A cursor that does not move on would offer the same page forever.
        const next =
          response.value.next !== null && response.value.next > after ? response.value.next : null;
        return { error: null, data: [...(s.data ?? []), ...response.value.held], next };
      });
    });
  }, [api, name, after]);

  return { ...state, loadingMore, more, reload };
}
