import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  deserializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SERVER_LIMITS } from "../../../shared/limits.js";

/** Why a server that wrote too many bytes was stopped: its state's lastError says so. */
export const BYTES_FLOOD_REASON = `it wrote more than ${SERVER_LIMITS.outputBytesPerWindowMax / (1024 * 1024)} MiB in ${SERVER_LIMITS.outputBytesWindowMs / 1000} s`;

/**
 * What the SDK's StdioClientTransport reads a server's stdout with, in its place. The SDK's own
 * buffer concatenates every chunk onto all it holds and searches all of it for a newline again,
 * so a 9 MB line costs ~150 chunks times the bytes so far: a server writing such lines without
 * end kept the host's thread ~90% busy, under any message count. This one looks at each byte
 * once, keeps the SDK's cap on a line (STDIO_DEFAULT_MAX_BUFFER_SIZE), and counts the bytes:
 * past SERVER_LIMITS.outputBytesPerWindowMax in outputBytesWindowMs, `onFlood` runs once and
 * nothing more is read.
 */
export class StdioLineBuffer {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lines: Buffer[] = [];
  #windowStart: number;
  #windowBytes = 0;
  #stopped = false;

  constructor(
    private readonly onFlood: () => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#windowStart = now();
  }

  append(chunk: Buffer): void {
    if (this.#stopped) return;
    const at = this.now();
    if (at - this.#windowStart >= SERVER_LIMITS.outputBytesWindowMs) {
      this.#windowStart = at;
      this.#windowBytes = 0;
    }
    this.#windowBytes += chunk.length;
    if (this.#windowBytes > SERVER_LIMITS.outputBytesPerWindowMax) {
      this.#stopped = true;
      this.clear();
      this.onFlood();
      return;
    }
    let from = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, from)) {
      this.#pending.push(chunk.subarray(from, newline));
      this.#lines.push(Buffer.concat(this.#pending));
      this.#pending = [];
      this.#pendingBytes = 0;
      from = newline + 1;
    }
    if (from < chunk.length) {
      this.#pending.push(chunk.subarray(from));
      this.#pendingBytes += chunk.length - from;
      if (this.#pendingBytes > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
        // As the SDK's buffer does: the transport reports it and closes.
        this.clear();
        throw new Error(
          `ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`,
        );
      }
    }
  }

  /** The next whole line's message, or null; a line that is not one throws (the SDK goes on). */
  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.shift();
    if (line === undefined) return null;
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    return deserializeMessage(line.toString("utf8", 0, end));
  }

  clear(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#lines = [];
  }
}

/**
 * Gives a StdioClientTransport this buffer instead of its own (a private field of the SDK's, the
 * only way in); any other transport (the tests' in-memory ones) is left as it is. An SDK that
 * no longer has the field throws here, loudly, at every server start: setting a field the SDK
 * does not read would leave its quadratic buffer in place and the byte flood open again.
 */
export function useLineBuffer(transport: Transport, onFlood: () => void): void {
  if (!(transport instanceof StdioClientTransport)) return;
  const stdio = transport as unknown as { _readBuffer?: { append?: unknown } };
  if (typeof stdio._readBuffer?.append !== "function") {
    throw new Error(
      "The MCP SDK's StdioClientTransport has no _readBuffer any more: Code Mode cannot read a server's output in linear time and will not start it",
    );
  }
  stdio._readBuffer = new StdioLineBuffer(onFlood);
}
