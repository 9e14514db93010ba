// Which of the client's requests the host has not answered yet, so that when the host goes
// away mid-run the shim can answer each itself instead of leaving the client to its own
// timeout. The shim still parses no MCP beyond the `id` (and a cancel's `requestId`); its
// session (shim-session.ts) also watches the same lines for the client's `initialize`.

import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";

export type Id = string | number;

export type Message = Record<string, unknown>;

/** What else wants to see each tracked line, parsed once (undefined: not a JSON object). */
export interface LineWatchers {
  client?: (line: string, message: Message | undefined) => void;
  host?: (line: string, message: Message | undefined) => void;
}

/** Splits a byte stream into lines; a line longer than `maxBytes` is skipped, not buffered. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  /** Bytes of the current line were pushed (it may be over-long and skipped). */
  private started = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      if (!this.skipping) {
        if (this.size + piece.length > this.maxBytes) {
          // Too long to look at: forwarded as it is, just not tracked.
          this.parts = [];
          this.size = 0;
          this.skipping = true;
        } else if (piece.length > 0) {
          this.started = true;
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (end === -1) return;
      this.started = false;
      if (!this.skipping) this.onLine(Buffer.concat(this.parts, this.size).toString("utf8"));
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      start = end + 1;
    }
  }

  /** Whether bytes of a line were pushed and its newline has not come yet. */
  midLine(): boolean {
    return this.started || this.skipping;
  }

  /** The current unfinished line's bytes; null when it is over-long (skipped, not kept). */
  partial(): Buffer | null {
    return this.skipping ? null : Buffer.concat(this.parts, this.size);
  }

  /** Forgets the current unfinished line (the stream it came from is gone). */
  reset(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.started = false;
  }
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
  readonly fromClient = new LineSplitter(LOCAL_ACCESS_LIMITS.shimTrackedLineMaxBytes, (line) =>
    this.clientLine(line),
  );
  readonly fromHost = new LineSplitter(LOCAL_ACCESS_LIMITS.shimTrackedLineMaxBytes, (line) =>
    this.hostLine(line),
  );

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
      if (this.ids.size < LOCAL_ACCESS_LIMITS.shimTrackedRequestsMax) {
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
