// The whole tool list of one server for the Servers page, fetched page by page
// (servers.tools is paginated so a long list never passes the API's reply cap).
import { useCallback, useEffect, useRef, useState } from "react";
import type { ApiError } from "../../../../shared/api/api-contract.js";
import type { ToolView } from "../../../../shared/api/api-views.js";
import { allToolPages } from "../../../../shared/api/tool-pages.js";
import { useApi } from "../../api/hooks.js";

export interface ToolListState {
  error: ApiError | null;
  data: ToolView[] | undefined;
  reload: () => void;
  /** Replace the list locally; given a function, from the list as it is then. */
  setData: (data: ToolView[] | ((current: ToolView[]) => ToolView[])) => void;
}

export function useToolList(name: string): ToolListState {
  const api = useApi();
  const [state, setState] = useState<{ error: ApiError | null; data: ToolView[] | undefined }>({
    error: null,
    data: undefined,
  });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const id = ++latest.current;
    void allToolPages((params) => api.request("servers.tools", params), name).then((response) => {
      // A newer request (or a local change) supersedes this one.
      if (latest.current !== id) return;
      setState((s) =>
        response.ok
          ? { error: null, data: response.value }
          : { error: response.error, data: s.data },
      );
    });
  }, [api, name, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const setData = useCallback((data: ToolView[] | ((current: ToolView[]) => ToolView[])) => {
    latest.current++;
    setState((s) => ({
      error: null,
      data: typeof data === "function" ? data(s.data ?? []) : data,
    }));
  }, []);
  return { ...state, reload, setData };
}
