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
 *
 * Lines are cut out one at a time as they are read, not all at once as a chunk comes: a 64 KiB
 * chunk of empty lines holds 65,536 of them, and the host stops a server some thousand lines
 * into a flood (meterMessages), so splitting a whole chunk first cost it lines it never reads,
 * and taking each from the front of an array that long cost a copy of the array per line.
 */
export class StdioLineBuffer {
  /** Unread bytes, the first chunk read from #offset. */
  #chunks: Buffer[] = [];
  #offset = 0;
  /** Bytes appended in all, and up to the end of the last newline among them. */
  #appended = 0;
  #linesEnd = 0;
  /** Bytes read out as lines (the newlines included). */
  #read = 0;
  #windowStart: number;
  #windowBytes = 0;
  #stopped = false;

  constructor(
    private readonly onFlood: () => void,
    private readonly now: () => number = () => performance.now(),
    /**
     * Told of each chunk that ends no line. Each chunk costs the host a read, whatever it holds,
     * and a chunk that ends a line is counted with its message; a server writing its output one
     * byte at a time, with no newline, kept the host's thread ~34% busy, never stopped.
     */
    private readonly onChunkWithoutLine: () => void = () => undefined,
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
      this.stop();
      this.onFlood();
      return;
    }
    if (chunk.length === 0) return;
    // Searched from the end: only the bytes after the chunk's last newline are looked at.
    const last = chunk.lastIndexOf(0x0a);
    if (last === -1) {
      this.onChunkWithoutLine();
      if (this.#stopped) return;
    }
    this.#chunks.push(chunk);
    this.#appended += chunk.length;
    if (last !== -1) this.#linesEnd = this.#appended - chunk.length + last + 1;
    if (this.#appended - this.#linesEnd > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
      // As the SDK's buffer does: the transport reports it and closes.
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`);
    }
  }

  /** The next whole line's message, or null; a line that is not one throws (the SDK goes on). */
  readMessage(): JSONRPCMessage | null {
    if (this.#read >= this.#linesEnd) return null;
    const line = this.#nextLine();
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    return deserializeMessage(line.toString("utf8", 0, end));
  }

  /** The next line without its newline; there is one (#read < #linesEnd). */
  #nextLine(): Buffer {
    const first = this.#chunks[0] as Buffer;
    const newline = first.indexOf(0x0a, this.#offset);
    if (newline !== -1) {
      const line = first.subarray(this.#offset, newline);
      this.#read += newline + 1 - this.#offset;
      this.#offset = newline + 1;
      if (this.#offset === first.length) this.#dropChunks(1);
      return line;
    }
    // The line goes on into later chunks: gathered once, each chunk walked once.
    const parts = [first.subarray(this.#offset)];
    let index = 1;
    for (;;) {
      const chunk = this.#chunks[index] as Buffer;
      const at = chunk.indexOf(0x0a);
      if (at === -1) {
        parts.push(chunk);
        index++;
        continue;
      }
      parts.push(chunk.subarray(0, at));
      const line = Buffer.concat(parts);
      this.#read += line.length + 1;
      this.#dropChunks(index);
      this.#offset = at + 1;
      if (this.#offset === chunk.length) this.#dropChunks(1);
      return line;
    }
  }

  #dropChunks(count: number): void {
    this.#chunks.splice(0, count);
    this.#offset = 0;
  }

  /**
   * Reads nothing more, and drops what it holds: the host stopped the server (a flood). The SDK's
   * transport would otherwise go on parsing the lines of the chunk it is reading.
   */
  stop(): void {
    this.#stopped = true;
    this.clear();
  }

  clear(): void {
    this.#chunks = [];
    this.#offset = 0;
    this.#appended = 0;
    this.#linesEnd = 0;
    this.#read = 0;
  }
}

/**
 * Gives a StdioClientTransport this buffer instead of its own (a private field of the SDK's, the
 * only way in); any other transport (the tests' in-memory ones) is left as it is. An SDK that
 * no longer has the field throws here, loudly, at every server start: setting a field the SDK
 * does not read would leave its quadratic buffer in place and the byte flood open again.
 */
export function useLineBuffer(
  transport: Transport,
  onFlood: () => void,
  onChunkWithoutLine?: () => void,
): StdioLineBuffer | undefined {
  if (!(transport instanceof StdioClientTransport)) return undefined;
  const stdio = transport as unknown as { _readBuffer?: { append?: unknown } };
  if (typeof stdio._readBuffer?.append !== "function") {
    throw new Error(
      "The MCP SDK's StdioClientTransport has no _readBuffer any more: Code Mode cannot read a server's output in linear time and will not start it",
    );
  }
  const buffer = new StdioLineBuffer(onFlood, undefined, onChunkWithoutLine);
  stdio._readBuffer = buffer;
  return buffer;
}
