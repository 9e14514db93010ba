// React glue for the typed API: a context holding the ApiClient and hooks to request,
// listen, and keep a value live (first a request, then the host's change events).
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactNode,
} from "react";
import type {
  ApiChannel,
  ApiClient,
  ApiError,
  ApiEventName,
  ApiEvents,
  ApiParams,
  ApiResponse,
  ApiResult,
} from "../../../shared/api/api-contract.js";
import type { ConnectedApiClient, ConnectionStatus } from "./ws-client.js";

interface ApiContextValue {
  client: ApiClient;
  /** Present in browser mode, where the connection can drop; null over Electron IPC. */
  connection: ConnectedApiClient | null;
}

const ApiContext = createContext<ApiContextValue | null>(null);

/** Wraps a client so that a transport that throws still answers with an error value. */
function safeClient(client: ApiClient): ApiClient {
  return {
    async request(channel, params) {
      try {
        const response = await client.request(channel, params);
        if (!response || typeof response !== "object") {
          return { ok: false, error: { code: "internal", message: "No answer from Code Mode." } };
        }
        return response;
      } catch (error) {
        return {
          ok: false,
          error: {
            code: "unavailable",
            message: error instanceof Error ? error.message : "Code Mode did not answer.",
          },
        };
      }
    },
    subscribe(event, listener) {
      try {
        return client.subscribe(event, listener);
      } catch (error) {
        console.error(`Code Mode: could not listen to ${event}`, error);
        return () => {};
      }
    },
  };
}

export function ApiProvider(props: {
  client: ApiClient;
  connection?: ConnectedApiClient | null;
  children: ReactNode;
}) {
  const { client, connection = null, children } = props;
  const value = useMemo(() => ({ client: safeClient(client), connection }), [client, connection]);
  return <ApiContext.Provider value={value}>{children}</ApiContext.Provider>;
}

function useApiContext(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error("useApi() needs an <ApiProvider> above it");
  return value;
}

/** The ApiClient: `await api.request("servers.list", {})` gives an ApiResponse, never throws. */
export function useApi(): ApiClient {
  return useApiContext().client;
}

/** Browser mode's WebSocket client (for what is not an API request); null in the desktop app. */
export function useBrowserConnection(): ConnectedApiClient | null {
  return useApiContext().connection;
}

const OPEN: ConnectionStatus = { state: "open", problem: null, retryAt: null };

/** The connection's state (always "open" over Electron IPC). */
export function useConnection(): ConnectionStatus & { reconnectNow: () => void } {
  const { connection } = useApiContext();
  const subscribe = useCallback(
    (onChange: () => void) => (connection ? connection.onStatus(onChange) : () => {}),
    [connection],
  );
  const status = useSyncExternalStore(subscribe, () => (connection ? connection.status() : OPEN));
  const reconnectNow = useCallback(() => connection?.reconnectNow(), [connection]);
  return { ...status, reconnectNow };
}

/** Calls `onOpen` whenever the connection comes back after a drop. */
function useOnReconnect(onOpen: () => void): void {
  const { connection } = useApiContext();
  const ref = useRef(onOpen);
  useEffect(() => {
    ref.current = onOpen;
  });
  useEffect(() => {
    if (!connection) return;
    let last = connection.status().state;
    return connection.onStatus((status) => {
      // Not after "connecting": requests made before the first welcome are still on their way.
      const wasDown = last === "reconnecting" || last === "refused";
      last = status.state;
      if (status.state === "open" && wasDown) ref.current();
    });
  }, [connection]);
}

export interface RequestState<T> {
  /** True while a request is in flight (data keeps the last value meanwhile). */
  loading: boolean;
  error: ApiError | null;
  data: T | undefined;
  /** Ask again. */
  reload: () => void;
  /** Replace the data locally (e.g. with the result of a mutation that returns the new list). */
  setData: (data: T) => void;
}

/**
 * One request, made when the component mounts and again whenever `params` change (compared
 * by value) or `reload()` is called. Pass `null` as params to skip the request.
 */
export function useRequest<C extends ApiChannel>(
  channel: C,
  params: ApiParams<C> | null,
): RequestState<ApiResult<C>> {
  const api = useApi();
  const key = params === null ? null : JSON.stringify(params);
  const [state, setState] = useState<{
    loading: boolean;
    error: ApiError | null;
    data: ApiResult<C> | undefined;
  }>({ loading: key !== null, error: null, data: undefined });
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    if (key === null) return;
    const id = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    void api.request(channel, JSON.parse(key) as ApiParams<C>).then((response) => {
      if (latest.current !== id) return;
      setState((s) =>
        response.ok
          ? { loading: false, error: null, data: response.value }
          : { loading: false, error: response.error, data: s.data },
      );
    });
  }, [api, channel, key, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const setData = useCallback((data: ApiResult<C>) => {
    latest.current++;
    setState({ loading: false, error: null, data });
  }, []);
  return { ...state, reload, setData };
}

/** Listens to one host event while the component is mounted. */
export function useEvent<E extends ApiEventName>(
  event: E,
  listener: (payload: ApiEvents[E]) => void,
): void {
  const api = useApi();
  const ref = useRef(listener);
  useEffect(() => {
    ref.current = listener;
  });
  useEffect(() => api.subscribe(event, (payload) => ref.current(payload)), [api, event]);
}

/**
 * A value kept live: the request's answer, then every `event` payload. By default an event
 * replaces the value (the host sends whole lists); pass `apply` to merge instead. The
 * request is made again after a dropped connection comes back.
 */
export function useLive<C extends ApiChannel, E extends ApiEventName>(
  channel: C,
  params: ApiParams<C>,
  event: E,
  apply?: (current: ApiResult<C> | undefined, payload: ApiEvents[E]) => ApiResult<C>,
): RequestState<ApiResult<C>> {
  const state = useRequest(channel, params);
  const { setData, reload } = state;
  const dataRef = useRef(state.data);
  useEffect(() => {
    dataRef.current = state.data;
  });
  const applyRef = useRef(apply);
  useEffect(() => {
    applyRef.current = apply;
  });
  useEvent(event, (payload) => {
    const fn = applyRef.current;
    const next = fn ? fn(dataRef.current, payload) : (payload as unknown as ApiResult<C>);
    dataRef.current = next;
    setData(next);
  });
  useOnReconnect(reload);
  return state;
}

/** Events whose payload can stand in for the result of channel C. */
export type ReplacingEvent<C extends ApiChannel> = {
  [E in ApiEventName]: ApiEvents[E] extends ApiResult<C> ? E : never;
}[ApiEventName];

/** A list kept live: shorthand for `useLive` where the event carries the whole new list. */
export function useLiveList<C extends ApiChannel, E extends ReplacingEvent<C>>(
  channel: C,
  event: E,
): RequestState<ApiResult<C>> {
  return useLive(channel, {} as ApiParams<C>, event);
}

/** Runs a mutation and tracks its state, for buttons ("Saving…") and error display. */
export function useMutation<C extends ApiChannel>(channel: C) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = useCallback(
    async (params: ApiParams<C>): Promise<ApiResponse<ApiResult<C>>> => {
      setBusy(true);
      setError(null);
      const response = await api.request(channel, params);
      if (mounted.current) {
        setBusy(false);
        setError(response.ok ? null : response.error);
      }
      return response;
    },
    [api, channel],
  );
  const clearError = useCallback(() => setError(null), []);
  return { run, busy, error, clearError };
}
