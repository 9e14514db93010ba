import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { describe, expect, it } from "vitest";
import { SERVER_LIMITS } from "../../../shared/limits.js";
import { StdioLineBuffer, useLineBuffer } from "./stdio-line-buffer.js";

const line = (id: number): string => `${JSON.stringify({ jsonrpc: "2.0", id, result: {} })}`;

describe("StdioLineBuffer", () => {
  it("gives whole lines as messages, across chunks and with CRLF ends", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    const text = `${line(1)}\n${line(2)}\r\n${line(3)}\n`;
    for (const part of [text.slice(0, 5), text.slice(5, 40), text.slice(40)]) {
      buffer.append(Buffer.from(part));
    }
    expect([buffer.readMessage(), buffer.readMessage(), buffer.readMessage()]).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
    expect(buffer.readMessage()).toBeNull();
  });

  it("throws for a line that is not a message and goes on with the next", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    buffer.append(Buffer.from(`not json\n${line(4)}\n`));
    expect(() => buffer.readMessage()).toThrow();
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });

  it("keeps the SDK's cap on a line without its end", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    const chunk = Buffer.alloc(1024 * 1024, 0x78);
    expect(() => {
      for (let i = 0; i <= STDIO_DEFAULT_MAX_BUFFER_SIZE / chunk.length; i++) buffer.append(chunk);
    }).toThrow(/maximum size/);
  });

  it("reads a 9 MB line in linear time (the SDK's buffer copied all it held per chunk)", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const started = performance.now();
    for (let round = 0; round < 5; round++) {
      buffer.append(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"s":"'));
      for (let i = 0; i < 140; i++) buffer.append(chunk);
      buffer.append(Buffer.from('"}}\n'));
      expect(buffer.readMessage()).toMatchObject({ method: "x" });
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("cuts out only the lines read: a chunk of a million empty lines, 5,000 read, takes little time", () => {
    // The host stops a flooding server some thousand lines in (meterMessages). Before, the whole
    // chunk was split into lines as it came, and each line read was shifted off the front of an
    // array that long (a copy of the array per line): ~21 s for this chunk.
    const buffer = new StdioLineBuffer(() => undefined);
    const started = performance.now();
    buffer.append(Buffer.alloc(1024 * 1024, 0x0a));
    let thrown = 0;
    for (let i = 0; i < 5_000; i++) {
      try {
        buffer.readMessage();
      } catch {
        thrown++;
      }
    }
    const took = performance.now() - started;
    expect(thrown).toBe(5_000);
    expect(took).toBeLessThan(1_000);
  });

  it("gives a line spread over many chunks whole, and the lines after it", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    const text = `${line(6)}\n${line(7)}\n${line(8)}`;
    for (const char of text) buffer.append(Buffer.from(char));
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 6, result: {} });
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from("\r\n"));
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
    expect(buffer.readMessage()).toBeNull();
  });

  it("tells of each chunk that ends no line, and reads nothing of it once that stopped it", () => {
    let told = 0;
    const buffer: StdioLineBuffer = new StdioLineBuffer(
      () => undefined,
      undefined,
      () => {
        told++;
        if (told === 2) buffer.stop();
      },
    );
    buffer.append(Buffer.from('{"jsonrpc":"2.0",'));
    buffer.append(Buffer.from(`"id":12,"result":{}}\n${line(13)}`));
    expect(told).toBe(1);
    expect(buffer.readMessage()).toEqual({ jsonrpc: "2.0", id: 12, result: {} });
    buffer.append(Buffer.from("x"));
    buffer.append(Buffer.from(`\n${line(14)}\n`));
    expect(told).toBe(2);
    expect(buffer.readMessage()).toBeNull();
  });

  it("reads nothing more once stopped, not even the lines it held", () => {
    const buffer = new StdioLineBuffer(() => undefined);
    buffer.append(Buffer.from(`${line(9)}\n${line(10)}\n`));
    buffer.stop();
    expect(buffer.readMessage()).toBeNull();
    buffer.append(Buffer.from(`${line(11)}\n`));
    expect(buffer.readMessage()).toBeNull();
  });

  it("stops reading, once, past its bytes in a window", () => {
    let now = 0;
    let floods = 0;
    const buffer = new StdioLineBuffer(
      () => floods++,
      () => now,
    );
    // One line of 1 MiB per chunk; the lines read are dropped, as the transport does.
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    chunk[chunk.length - 1] = 0x0a;
    const perWindow = SERVER_LIMITS.outputBytesPerWindowMax / chunk.length;
    const write = (count: number): void => {
      for (let i = 0; i < count; i++) {
        buffer.append(chunk);
        buffer.clear();
      }
    };
    write(perWindow);
    expect(floods).toBe(0);
    // A new window starts the count over.
    now = SERVER_LIMITS.outputBytesWindowMs;
    write(perWindow);
    expect(floods).toBe(0);
    write(1);
    expect(floods).toBe(1);
    buffer.append(Buffer.from(`${line(5)}\n`));
    expect(buffer.readMessage()).toBeNull();
    expect(floods).toBe(1);
  });
});

describe("useLineBuffer", () => {
  // The buffer goes into a private field of the SDK's: an SDK update that renames it must stop
  // servers from starting, not leave the quadratic buffer in place without a word.
  it("puts the buffer into the SDK's StdioClientTransport", () => {
    const transport = new StdioClientTransport({ command: "never-started" });
    useLineBuffer(transport, () => undefined);
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(
      StdioLineBuffer,
    );
  });

  it("throws when the SDK's transport has no such field any more", () => {
    const transport = new StdioClientTransport({ command: "never-started" });
    delete (transport as unknown as { _readBuffer?: unknown })._readBuffer;
    expect(() => useLineBuffer(transport, () => undefined)).toThrow(/_readBuffer/);
    expect((transport as unknown as { _readBuffer?: unknown })._readBuffer).toBeUndefined();
  });

  it("leaves another transport as it is", () => {
    const transport = { _readBuffer: "theirs" } as unknown as StdioClientTransport;
    useLineBuffer(transport, () => undefined);
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBe("theirs");
  });
});
