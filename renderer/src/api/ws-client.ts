// Browser-mode transport: the typed API over a loopback WebSocket, framed as in
// shared/api/ws-protocol.ts. Errors are data: a request never rejects, it resolves with
// `{ ok: false, error }` (code "unavailable" when the socket is not there).
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
import type { AuditExportParams } from "../../../shared/api/audit-export.js";
import {
  WS_CLOSE,
  type WsClientMessage,
  type WsCredential,
  type WsServerMessage,
} from "../../../shared/api/ws-protocol.js";
import { HOST_LIMITS } from "../../../shared/limits.js";

export type ConnectionState =
  /** First connection attempt, before any welcome: requests wait for it. */
  | "connecting"
  | "open"
  /** Dropped (or never reached): waiting to try again. */
  | "reconnecting"
  /** The host turned the link or the session down: trying again would not help. */
  | "refused"
  | "closed";

export interface ConnectionStatus {
  state: ConnectionState;
  /** Why the last connection ended, in words; null while open. */
  problem: string | null;
  /** When the next attempt starts (ms since epoch), while reconnecting. */
  retryAt: number | null;
}

/** An ApiClient that can also say whether it is connected. */
export interface ConnectedApiClient extends ApiClient {
  status(): ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** A one-time link (a path on this server) that downloads the audit export. */
  exportLink(params: AuditExportParams): Promise<ApiResponse<{ url: string }>>;
  /** Try to connect now instead of waiting for the backoff timer. */
  reconnectNow(): void;
  close(): void;
}

export interface WsClientOptions {
  /** Called with the session the host gave for the link's ticket, for later page loads. */
  onSession?: (session: string) => void;
  /** How long requests made before the first welcome wait for it. */
  firstConnectWaitMs?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** For tests: the WebSocket constructor. */
  WebSocketImpl?: typeof WebSocket;
}

type AnyListener = (payload: unknown) => void;

interface Pending {
  resolve: (response: ApiResponse<unknown>) => void;
}

interface Waiting {
  send: () => void;
  fail: (error: ApiError) => void;
}

function unavailable(message: string): ApiError {
  return { code: "unavailable", message };
}

/** Why the host turned a page down, by the close code it used before its welcome. */
const AUTH_CLOSES: Record<number, string> = {
  [WS_CLOSE.badTicket]: `This link has been used already or has expired: a link opens Code Mode once, within ${HOST_LIMITS.uiTicketTtlMs / 1000} s.`,
  [WS_CLOSE.badSession]:
    "This page is no longer signed in to Code Mode: Code Mode was restarted since it was opened.",
  1008: "Code Mode refused this page.",
};

const CLOSE_REASONS: Record<number, string> = {
  1006: "The connection to Code Mode was lost.",
  1009: "A message was too large for Code Mode to accept.",
  1011: "Code Mode hit an internal error.",
};

export function createWsClient(
  url: string,
  firstCredential: WsCredential,
  options: WsClientOptions = {},
): ConnectedApiClient {
  // The ticket works once: once welcomed, every later connection says the session.
  let credential = firstCredential;
  const WS = options.WebSocketImpl ?? WebSocket;
  const firstConnectWaitMs = options.firstConnectWaitMs ?? 10_000;
  const minBackoff = options.minBackoffMs ?? 500;
  const maxBackoff = options.maxBackoffMs ?? 15_000;

  let socket: WebSocket | null = null;
  let welcomed = false;
  let everWelcomed = false;
  let closedForGood = false;
  let attempt = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let nextId = 1;
  let status: ConnectionStatus = { state: "connecting", problem: null, retryAt: null };

  const pending = new Map<number, Pending>();
  const waiting = new Set<Waiting>();
  const listeners = new Map<ApiEventName, Set<AnyListener>>();
  const statusListeners = new Set<(status: ConnectionStatus) => void>();

  function setStatus(next: ConnectionStatus): void {
    status = next;
    for (const listener of [...statusListeners]) {
      try {
        listener(status);
      } catch (error) {
        console.error("Code Mode: a connection listener failed", error);
      }
    }
  }

  function send(message: WsClientMessage | ({ type: "hello" } & WsCredential)): boolean {
    if (!socket || socket.readyState !== WS.OPEN) return false;
    try {
      socket.send(JSON.stringify(message));
      return true;
    } catch {
      return false;
    }
  }

  function connect(): void {
    if (closedForGood) return;
    retryTimer = null;
    welcomed = false;
    let ws: WebSocket;
    try {
      ws = new WS(url);
    } catch (error) {
      scheduleReconnect(error instanceof Error ? error.message : "Could not open the connection.");
      return;
    }
    socket = ws;
    ws.onopen = () => {
      if (socket !== ws) return;
      send({ type: "hello", ...credential });
    };
    ws.onmessage = (event: MessageEvent) => {
      if (socket !== ws) return;
      if (typeof event.data !== "string") return;
      let message: WsServerMessage;
      try {
        message = JSON.parse(event.data) as WsServerMessage;
      } catch {
        return;
      }
      handleMessage(message);
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket !== ws) return;
      socket = null;
      const wasWelcomed = welcomed;
      welcomed = false;
      failPending("The connection to Code Mode was lost before it answered.");
      if (closedForGood) return;
      const refusal = wasWelcomed ? undefined : AUTH_CLOSES[event.code];
      if (refusal !== undefined) {
        const problem = refusal;
        failWaiting(problem);
        setStatus({ state: "refused", problem, retryAt: null });
        return;
      }
      const problem =
        event.reason ||
        CLOSE_REASONS[event.code] ||
        (wasWelcomed ? "The connection to Code Mode was lost." : "Could not reach Code Mode.");
      scheduleReconnect(problem);
    };
    ws.onerror = () => {
      // onclose follows and does the work.
    };
  }

  function handleMessage(message: WsServerMessage): void {
    switch (message.type) {
      case "welcome": {
        if (message.session !== undefined) {
          credential = { session: message.session };
          options.onSession?.(message.session);
        }
        welcomed = true;
        everWelcomed = true;
        attempt = 0;
        for (const [event, set] of listeners) {
          if (set.size > 0) send({ type: "subscribe", event });
        }
        setStatus({ state: "open", problem: null, retryAt: null });
        for (const waiter of [...waiting]) {
          waiting.delete(waiter);
          waiter.send();
        }
        return;
      }
      case "response": {
        const entry = pending.get(message.id);
        if (!entry) return;
        pending.delete(message.id);
        entry.resolve(normaliseResponse(message.response));
        return;
      }
      case "event": {
        const set = listeners.get(message.event);
        if (!set) return;
        for (const listener of [...set]) {
          try {
            listener(message.payload);
          } catch (error) {
            console.error(`Code Mode: a listener for ${message.event} failed`, error);
          }
        }
        return;
      }
      default:
        return;
    }
  }

  function failPending(message: string): void {
    for (const [id, entry] of pending) {
      pending.delete(id);
      entry.resolve({ ok: false, error: unavailable(message) });
    }
  }

  function failWaiting(message: string): void {
    for (const waiter of [...waiting]) {
      waiting.delete(waiter);
      waiter.fail(unavailable(message));
    }
  }

  function scheduleReconnect(problem: string): void {
    if (closedForGood) return;
    // Requests made before the very first welcome wait for it; once that hope is gone, they fail.
    failWaiting(problem);
    const base = Math.min(maxBackoff, minBackoff * 2 ** attempt);
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    attempt += 1;
    const retryAt = Date.now() + delay;
    setStatus({ state: "reconnecting", problem, retryAt });
    retryTimer = setTimeout(connect, delay);
  }

  function request<C extends ApiChannel>(
    channel: C,
    params: ApiParams<C>,
  ): Promise<ApiResponse<ApiResult<C>>> {
    return ask((id) => ({ type: "request", id, channel, params }));
  }

  /** Sends the message `make` builds with a fresh id; resolves with the response to that id. */
  function ask<T>(make: (id: number) => WsClientMessage): Promise<ApiResponse<T>> {
    return new Promise((resolve) => {
      const resolveAny = resolve as (response: ApiResponse<unknown>) => void;
      const doSend = () => {
        const id = nextId++;
        pending.set(id, { resolve: resolveAny });
        if (!send(make(id))) {
          pending.delete(id);
          resolve({ ok: false, error: unavailable("Code Mode is not connected.") });
        }
      };
      if (welcomed) {
        doSend();
        return;
      }
      if (closedForGood) {
        resolve({ ok: false, error: unavailable("The connection to Code Mode is closed.") });
        return;
      }
      if (!everWelcomed && status.state === "connecting") {
        const waiter: Waiting = {
          send: () => {
            clearTimeout(timer);
            doSend();
          },
          fail: (error) => {
            clearTimeout(timer);
            resolve({ ok: false, error });
          },
        };
        const timer = setTimeout(() => {
          waiting.delete(waiter);
          resolve({ ok: false, error: unavailable("Code Mode did not answer in time.") });
        }, firstConnectWaitMs);
        waiting.add(waiter);
        return;
      }
      resolve({
        ok: false,
        error: unavailable(
          status.problem
            ? `Code Mode is not connected: ${status.problem}`
            : "Code Mode is not connected.",
        ),
      });
    });
  }

  function subscribe<E extends ApiEventName>(
    event: E,
    listener: (payload: ApiEvents[E]) => void,
  ): () => void {
    let set = listeners.get(event);
    if (!set) {
      set = new Set();
      listeners.set(event, set);
    }
    // Wrap so that the same function subscribed twice counts twice.
    const wrapped: AnyListener = (payload) => listener(payload as ApiEvents[E]);
    set.add(wrapped);
    if (set.size === 1 && welcomed) send({ type: "subscribe", event });
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = listeners.get(event);
      if (!current) return;
      current.delete(wrapped);
      if (current.size === 0) {
        listeners.delete(event);
        if (welcomed) send({ type: "unsubscribe", event });
      }
    };
  }

  connect();

  return {
    request,
    subscribe,
    exportLink: (params) => ask((id) => ({ type: "exportLink", id, params })),
    status: () => status,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => {
        statusListeners.delete(listener);
      };
    },
    reconnectNow() {
      if (closedForGood || (status.state !== "reconnecting" && status.state !== "refused")) return;
      if (retryTimer) clearTimeout(retryTimer);
      attempt = 0;
      setStatus({ state: "reconnecting", problem: status.problem, retryAt: Date.now() });
      connect();
    },
    close() {
      closedForGood = true;
      if (retryTimer) clearTimeout(retryTimer);
      const ws = socket;
      socket = null;
      welcomed = false;
      ws?.close();
      failPending("The connection to Code Mode is closed.");
      failWaiting("The connection to Code Mode is closed.");
      setStatus({ state: "closed", problem: null, retryAt: null });
    },
  };
}

/** A response that does not have the documented shape becomes an internal error. */
function normaliseResponse(response: unknown): ApiResponse<unknown> {
  if (response && typeof response === "object" && "ok" in response) {
    const r = response as { ok: unknown; value?: unknown; error?: unknown };
    if (r.ok === true) return { ok: true, value: r.value };
    if (r.ok === false && r.error && typeof r.error === "object") {
      const e = r.error as Partial<ApiError>;
      return {
        ok: false,
        error: {
          code: e.code ?? "internal",
          message: typeof e.message === "string" ? e.message : "Something went wrong.",
          ...(Array.isArray(e.fields) ? { fields: e.fields } : {}),
        },
      };
    }
  }
  return {
    ok: false,
    error: { code: "internal", message: "Code Mode sent an unreadable answer." },
  };
}
