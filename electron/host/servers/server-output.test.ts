import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ServerOutput, type ServerOutputHandlers } from "./server-output.js";
import { OUTPUT_BYTES_PER_WINDOW_MAX, OUTPUT_BYTES_WINDOW_MS } from "./byte-window.js";

const line = (id: number): string => `${JSON.stringify({ jsonrpc: "2.0", id, result: {} })}`;

/** A reader whose handlers record what they are told; `also` runs after each. */
function reader(also: Partial<ServerOutputHandlers> = {}, now?: () => number) {
  const seen = {
    messages: [] as JSONRPCMessage[],
    badLines: 0,
    overLong: [] as Error[],
    floods: 0,
    chunksWithoutLine: 0,
  };
  const output = new ServerOutput(
    {
      message: (message) => {
        seen.messages.push(message);
        also.message?.(message);
      },
      badLine: (error) => {
        seen.badLines++;
        also.badLine?.(error);
      },
      overLong: (error) => seen.overLong.push(error),
      flood: () => seen.floods++,
      chunkWithoutLine: () => {
        seen.chunksWithoutLine++;
        also.chunkWithoutLine?.();
      },
    },
    now,
  );
  return { output, seen };
}

describe("ServerOutput", () => {
  it("gives whole lines as messages, across chunks and with CRLF ends", () => {
    const { output, seen } = reader();
    const text = `${line(1)}\n${line(2)}\r\n${line(3)}\n`;
    for (const part of [text.slice(0, 5), text.slice(5, 40), text.slice(40)]) {
      output.push(Buffer.from(part));
    }
    expect(seen.messages).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
  });

  it("reports a line that is not a message and goes on with the next", () => {
    const { output, seen } = reader();
    output.push(Buffer.from(`not json\n${line(4)}\n`));
    expect(seen.badLines).toBe(1);
    expect(seen.messages).toEqual([{ jsonrpc: "2.0", id: 4, result: {} }]);
  });

  it("keeps the SDK's cap on a line without its end", () => {
    const { output, seen } = reader();
    const chunk = Buffer.alloc(1024 * 1024, 0x78);
    for (let i = 0; i <= STDIO_DEFAULT_MAX_BUFFER_SIZE / chunk.length; i++) output.push(chunk);
    expect(seen.overLong).toHaveLength(1);
    expect(seen.overLong[0]?.message).toMatch(/maximum size/);
    output.push(Buffer.from(`\n${line(1)}\n`));
    expect(seen.messages).toEqual([]);
  });

  it("reads a 9 MB line in linear time (the SDK's buffer copied all it held per chunk)", () => {
    const { output, seen } = reader();
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const started = performance.now();
    for (let round = 0; round < 5; round++) {
      output.push(Buffer.from('{"jsonrpc":"2.0","method":"x","params":{"s":"'));
      for (let i = 0; i < 140; i++) output.push(chunk);
      output.push(Buffer.from('"}}\n'));
      expect(seen.messages[round]).toMatchObject({ method: "x" });
    }
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("cuts out only the lines read: a chunk of a million empty lines, stopped 5,000 in, takes little time", () => {
    // The host stops a flooding server some thousand lines in (meterMessages): the lines after
    // the stop are never cut out of the chunk.
    const { output, seen } = reader({
      badLine: () => {
        if (seen.badLines === 5_000) output.stop();
      },
    });
    const started = performance.now();
    output.push(Buffer.alloc(1024 * 1024, 0x0a));
    const took = performance.now() - started;
    expect(seen.badLines).toBe(5_000);
    expect(took).toBeLessThan(1_000);
  });

  it("gives a line spread over many chunks whole, and the lines after it", () => {
    const { output, seen } = reader();
    const text = `${line(6)}\n${line(7)}\n${line(8)}`;
    for (const char of text) output.push(Buffer.from(char));
    expect(seen.messages).toEqual([
      { jsonrpc: "2.0", id: 6, result: {} },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
    output.push(Buffer.from("\r\n"));
    expect(seen.messages).toHaveLength(3);
    expect(seen.messages[2]).toEqual({ jsonrpc: "2.0", id: 8, result: {} });
  });

  it("tells of each chunk that ends no line, and reads nothing of it once that stopped it", () => {
    const { output, seen } = reader({
      chunkWithoutLine: () => {
        if (seen.chunksWithoutLine === 2) output.stop();
      },
    });
    output.push(Buffer.from('{"jsonrpc":"2.0",'));
    output.push(Buffer.from(`"id":12,"result":{}}\n${line(13)}`));
    expect(seen.chunksWithoutLine).toBe(1);
    expect(seen.messages).toEqual([{ jsonrpc: "2.0", id: 12, result: {} }]);
    output.push(Buffer.from("x"));
    output.push(Buffer.from(`\n${line(14)}\n`));
    expect(seen.chunksWithoutLine).toBe(2);
    expect(seen.messages).toHaveLength(1);
  });

  it("reads nothing more once stopped, not even the rest of the chunk it is reading", () => {
    const { output, seen } = reader({ message: () => output.stop() });
    output.push(Buffer.from(`${line(9)}\n${line(10)}\n`));
    output.push(Buffer.from(`${line(11)}\n`));
    expect(seen.messages).toEqual([{ jsonrpc: "2.0", id: 9, result: {} }]);
  });

  it("stops reading, once, past its bytes in a window", () => {
    let now = 0;
    const { output, seen } = reader({}, () => now);
    // One line of 1 MiB per chunk (not a message: counted as a bad line, and read on).
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    chunk[chunk.length - 1] = 0x0a;
    const perWindow = OUTPUT_BYTES_PER_WINDOW_MAX / chunk.length;
    const write = (count: number): void => {
      for (let i = 0; i < count; i++) output.push(chunk);
    };
    write(perWindow);
    expect(seen.floods).toBe(0);
    // A new window starts the count over.
    now = OUTPUT_BYTES_WINDOW_MS;
    write(perWindow);
    expect(seen.floods).toBe(0);
    write(1);
    expect(seen.floods).toBe(1);
    output.push(Buffer.from(`${line(5)}\n`));
    expect(seen.messages).toEqual([]);
    expect(seen.floods).toBe(1);
  });
});
