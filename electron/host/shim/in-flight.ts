// Which of the client's requests the host has not answered yet, so that when the host goes
// away mid-run the shim can answer each itself instead of leaving the client to its own
// timeout. The shim still parses no MCP beyond the `id` (and a cancel's `requestId`); its
// session (shim-session.ts) also watches the same lines for the client's `initialize`.

import { LineFramer } from "../util/line-framer.js";
import { MiB } from "../util/units.js";

/**
 * Shim: longest line (either way) it reads the JSON-RPC `id` of, to answer requests in
 * flight itself if the app goes away; longer lines pass through untracked. The same bound
 * as the host's SOCKET_MESSAGE_MAX_BYTES.
 */
export const SHIM_TRACKED_LINE_MAX_BYTES = 4 * MiB;

/** Shim: most unanswered request ids it remembers; later ones pass through untracked. */
export const SHIM_TRACKED_REQUESTS_MAX = 10_000;

export type Id = string | number;

export type Message = Record<string, unknown>;

/** What else wants to see each tracked line, parsed once (undefined: not a JSON object). */
export interface LineWatchers {
  client?: (line: string, message: Message | undefined) => void;
  host?: (line: string, message: Message | undefined) => void;
}

export function parseObject(line: string): Message | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  return parsed as Message;
}

export const isId = (value: unknown): value is Id =>
  typeof value === "string" || typeof value === "number";

/** Request ids the client sent and the host has not answered, in the order they were sent. */
export class InFlight {
  // Keyed by type and value, so the string "1" and the number 1 stay two requests.
  private readonly ids = new Map<string, Id>();
  // A line too long to look at is passed on as it is, just not tracked.
  readonly fromClient = new LineFramer({
    maxLineBytes: SHIM_TRACKED_LINE_MAX_BYTES,
    overLong: "skip",
    onLine: (line) => this.clientLine(line.toString("utf8")),
  });
  readonly fromHost = new LineFramer({
    maxLineBytes: SHIM_TRACKED_LINE_MAX_BYTES,
    overLong: "skip",
    onLine: (line) => this.hostLine(line.toString("utf8")),
  });

  constructor(private readonly watchers: LineWatchers = {}) {}

  pending(): Id[] {
    return [...this.ids.values()];
  }

  /** Forgets one request (the shim answered it itself). */
  forget(id: Id): void {
    this.ids.delete(key(id));
  }

  /** Forgets them all (the shim answered them itself). */
  clear(): void {
    this.ids.clear();
  }

  private clientLine(line: string): void {
    const message = parseObject(line);
    this.track(message);
    this.watchers.client?.(line, message);
  }

  private track(message: Message | undefined): void {
    if (message === undefined || typeof message.method !== "string") return;
    if (isId(message.id)) {
      if (this.ids.size < SHIM_TRACKED_REQUESTS_MAX) {
        this.ids.set(key(message.id), message.id);
      }
      return;
    }
    // A cancelled request gets no answer from the host; it must not get one from us either.
    if (message.method === "notifications/cancelled") {
      const params = message.params;
      if (typeof params === "object" && params !== null) {
        const requestId = (params as { requestId?: unknown }).requestId;
        if (isId(requestId)) this.ids.delete(key(requestId));
      }
    }
  }

  private hostLine(line: string): void {
    const message = parseObject(line);
    this.watchers.host?.(line, message);
    // Requests the host sends (no answer from us is due) carry a method; answers do not.
    if (message === undefined || "method" in message || !isId(message.id)) return;
    this.ids.delete(key(message.id));
  }
}

export function key(id: Id): string {
  return `${typeof id}:${String(id)}`;
}
