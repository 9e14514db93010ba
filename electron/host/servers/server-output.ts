// A wrapped server's stdout as the host reads it: counted, cut into lines in linear time, and
// each line parsed as one JSON-RPC message. The SDK's own stdio buffer concatenated every chunk
// onto all it held and searched all of it for a newline again, so a server writing 9 MB lines
// without end kept the host's thread ~90% busy; this reader looks at each byte once.
import {
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  deserializeMessage,
} from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineFramer } from "../util/line-framer.js";
import { ByteWindow, OUTPUT_BYTES_PER_WINDOW_MAX, OUTPUT_BYTES_WINDOW_MS } from "./byte-window.js";

/** Why a server that wrote too many bytes was stopped: its state's lastError says so. */
export const BYTES_FLOOD_REASON = `it wrote more than ${OUTPUT_BYTES_PER_WINDOW_MAX / (1024 * 1024)} MiB in ${OUTPUT_BYTES_WINDOW_MS / 1000} s`;

export interface ServerOutputHandlers {
  message: (message: JSONRPCMessage) => void;
  /** A line that is no message (not JSON, or not JSON-RPC): reported, and reading goes on. */
  badLine: (error: Error) => void;
  /**
   * A line longer than the SDK's cap on one (STDIO_DEFAULT_MAX_BUFFER_SIZE): nothing more is
   * read; the transport reports it and closes, as the SDK's does.
   */
  overLong: (error: Error) => void;
  /**
   * More than OUTPUT_BYTES_PER_WINDOW_MAX bytes in OUTPUT_BYTES_WINDOW_MS: told once,
   * and nothing more is read (the chunk that passed the bound neither).
   */
  flood: () => void;
  /**
   * A chunk that ends no line. Each chunk costs the host a read, whatever it holds, and a chunk
   * that ends a line is counted with its message; a server writing its output one byte at a
   * time, with no newline, kept the host's thread ~34% busy, never stopped.
   */
  chunkWithoutLine: () => void;
}

export class ServerOutput {
  readonly #handlers: ServerOutputHandlers;
  readonly #bytes: ByteWindow;
  // Lines are given one at a time as they are cut: a 64 KiB chunk of empty lines holds 65,536 of
  // them, and the host stops a server some thousand lines into a flood (meterMessages), so a
  // stop() from a handler leaves the rest of the chunk uncut.
  readonly #lines: LineFramer;
  #stopped = false;

  constructor(handlers: ServerOutputHandlers, now: () => number = () => performance.now()) {
    this.#handlers = handlers;
    this.#bytes = new ByteWindow(now);
    this.#lines = new LineFramer({
      maxLineBytes: STDIO_DEFAULT_MAX_BUFFER_SIZE,
      overLong: "stop",
      onLine: (line) => this.#line(line),
      onOverLong: () => {
        this.#stopped = true;
        handlers.overLong(
          new Error(`ReadBuffer exceeded maximum size of ${STDIO_DEFAULT_MAX_BUFFER_SIZE} bytes`),
        );
      },
    });
  }

  push(chunk: Buffer): void {
    if (this.#stopped) return;
    if (this.#bytes.add(chunk.length)) {
      this.stop();
      this.#handlers.flood();
      return;
    }
    if (chunk.length === 0) return;
    // Searched from the end: only the bytes after the chunk's last newline are looked at.
    if (chunk.lastIndexOf(0x0a) === -1) {
      this.#handlers.chunkWithoutLine();
      if (this.#stopped) return;
    }
    this.#lines.push(chunk);
  }

  #line(line: Buffer): void {
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line.toString("utf8", 0, end));
    } catch (error) {
      this.#handlers.badLine(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.#handlers.message(message);
  }

  /**
   * Reads nothing more, and drops what it holds: the host stopped the server (a flood), and the
   * lines of the chunk being read would still cost it a parse each.
   */
  stop(): void {
    this.#stopped = true;
    this.#lines.stop();
  }
}
