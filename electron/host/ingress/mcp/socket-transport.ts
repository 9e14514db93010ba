import type { Duplex } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";
import { LineFramer } from "../../util/line-framer.js";
import { MiB } from "../../util/units.js";

/** Longest JSON-RPC line accepted from a shim (the same bound as an HTTP body). */
export const SOCKET_MESSAGE_MAX_BYTES = 4 * MiB;

/** A JSON-RPC error reply with no request to answer: MCP lets the id be left out then. */
function errorLine(code: number, message: string, id?: string | number): string {
  return (
    JSON.stringify({
      jsonrpc: "2.0",
      ...(id === undefined ? {} : { id }),
      error: { code, message },
    }) + "\n"
  );
}

function idOf(value: unknown): string | number | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * MCP over a shim's connection: one JSON-RPC message per line. Unlike the SDK's stdio
 * transport, which drops a line it cannot parse without a word (the client then waits for
 * an answer that never comes), this one answers it: -32700 for a line that is not JSON,
 * -32600 for JSON that is not a JSON-RPC message. A line over the size cap ends the
 * connection after saying why.
 */
export class SocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly lines = new LineFramer({
    maxLineBytes: SOCKET_MESSAGE_MAX_BYTES,
    overLong: "stop",
    onLine: (line) => {
      if (this.closed) return this.lines.stop();
      this.receive(line.toString("utf8"));
    },
    onOverLong: () => {
      if (this.closed) return;
      this.socket.write(
        errorLine(
          ErrorCode.InvalidRequest,
          `message longer than ${SOCKET_MESSAGE_MAX_BYTES} bytes: connection closed`,
        ),
      );
      this.socket.end();
      void this.close();
    },
  });
  private closed = false;

  /** `onCutOff` is told the unread bytes when the connection is cut off (for the audit log). */
  constructor(
    private readonly socket: Duplex,
    private readonly onCutOff?: (unreadBytes: number) => void,
  ) {}

  start(): Promise<void> {
    this.socket.on("data", (chunk: Buffer) => {
      if (!this.closed) this.lines.push(chunk);
    });
    // The connection ending is the session ending (the SDK's transport would not notice).
    const end = (): void => void this.close();
    this.socket.once("end", end);
    this.socket.once("close", end);
    this.socket.once("error", end);
    return Promise.resolve();
  }

  private receive(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.write(errorLine(ErrorCode.ParseError, "Parse error: the line is not JSON"));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.write(
        errorLine(
          ErrorCode.InvalidRequest,
          "Invalid Request: not a JSON-RPC 2.0 message",
          idOf(value),
        ),
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.write(JSON.stringify(message) + "\n") || this.closed) resolve();
      else this.socket.once("drain", () => resolve());
    });
  }

  /**
   * Writes one line, unless the client has left more than HOST_LIMITS.socketUnreadMaxBytes of
   * answers unread: then it is cut off. Every request is answered, and a client that asks
   * without reading kept every answer in the host's memory (a tools/list of ~50 bytes asked
   * for run_python's whole description), without bound.
   */
  private write(line: string): boolean {
    const unread = this.socket.writableLength;
    if (unread > HOST_LIMITS.socketUnreadMaxBytes) {
      this.onCutOff?.(unread);
      this.socket.destroy();
      void this.close();
      return false;
    }
    return this.socket.write(line);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.socket.removeAllListeners("data");
    this.onclose?.();
    return Promise.resolve();
  }
}
