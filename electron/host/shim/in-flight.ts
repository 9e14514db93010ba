// Which of the client's requests the host has not answered yet, so that when the host goes
// away mid-run the shim can answer each itself instead of leaving the client to its own
// timeout. The shim still parses no MCP beyond the `id` (and a cancel's `requestId`).

import { LOCAL_ACCESS_LIMITS } from "../../../shared/limits.js";

type Id = string | number;

/** Splits a byte stream into lines; a line longer than `maxBytes` is skipped, not buffered. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

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
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (end === -1) return;
      if (!this.skipping) this.onLine(Buffer.concat(this.parts, this.size).toString("utf8"));
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      start = end + 1;
    }
  }
}

function parseObject(line: string): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  return parsed as Record<string, unknown>;
}

const isId = (value: unknown): value is Id =>
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

  pending(): Id[] {
    return [...this.ids.values()];
  }

  private clientLine(line: string): void {
    const message = parseObject(line);
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
    // Requests the host sends (no answer from us is due) carry a method; answers do not.
    if (message === undefined || "method" in message || !isId(message.id)) return;
    this.ids.delete(key(message.id));
  }
}

function key(id: Id): string {
  return `${typeof id}:${String(id)}`;
}
