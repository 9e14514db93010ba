import { describe, expect, it } from "vitest";
import { LineFramer, type OverLongPolicy } from "./line-framer.js";

function framer(maxLineBytes: number, overLong: OverLongPolicy) {
  const lines: string[] = [];
  const overLongs: number[] = [];
  const f = new LineFramer({
    maxLineBytes,
    overLong,
    onLine: (line) => lines.push(line.toString("utf8")),
    onOverLong: (bytes) => overLongs.push(bytes),
  });
  return { f, lines, overLongs };
}

describe("LineFramer", () => {
  it("joins a multi-byte character split across chunks", () => {
    const { f, lines } = framer(100, "stop");
    const bytes = Buffer.from("héllo €\n", "utf8");
    f.push(bytes.subarray(0, 2));
    f.push(bytes.subarray(2, 7));
    f.push(bytes.subarray(7));
    expect(lines).toEqual(["héllo €"]);
  });

  it("gives several lines from one chunk and keeps the unfinished rest", () => {
    const { f, lines } = framer(100, "stop");
    f.push(Buffer.from("a\nb\n\nc"));
    expect(lines).toEqual(["a", "b", ""]);
    expect(f.pending).toBe(1);
    expect(f.midLine()).toBe(true);
    f.push(Buffer.from("\n"));
    expect(lines).toEqual(["a", "b", "", "c"]);
    expect(f.midLine()).toBe(false);
  });

  it("keeps its own copy of an unfinished line: the caller may reuse its buffer", () => {
    const { f, lines } = framer(100, "stop");
    const chunk = Buffer.from("abc");
    f.push(chunk);
    chunk.fill(0x78);
    f.push(Buffer.from("\n"));
    expect(lines).toEqual(["abc"]);
  });

  it("accepts a line of exactly the cap", () => {
    const { f, lines, overLongs } = framer(3, "stop");
    f.push(Buffer.from("abc\n"));
    expect(lines).toEqual(["abc"]);
    expect(overLongs).toEqual([]);
  });

  describe('"stop"', () => {
    it("reports a line over the cap as soon as it passes it, without a newline, then gives nothing", () => {
      const { f, lines, overLongs } = framer(10, "stop");
      f.push(Buffer.alloc(6, 0x61));
      expect(overLongs).toEqual([]);
      f.push(Buffer.alloc(6, 0x61));
      expect(overLongs).toEqual([12]);
      expect(f.stopped).toBe(true);
      expect(f.push(Buffer.from("ok\n"))).toBe(0);
      expect(lines).toEqual([]);
    });

    it("gives the lines before an over-long one in the same chunk, then stops", () => {
      const { f, lines, overLongs } = framer(3, "stop");
      const taken = f.push(Buffer.from("ab\ncd\nefgh\nij\n"));
      expect(lines).toEqual(["ab", "cd"]);
      expect(overLongs).toEqual([4]);
      expect(taken).toBe(6);
    });
  });

  describe('"skip"', () => {
    it("skips a line longer than the cap without buffering it, and gives the next one", () => {
      const { f, lines, overLongs } = framer(4, "skip");
      f.push(Buffer.from("ab\nlonger than four"));
      expect(f.partial()).toBeNull();
      expect(f.midLine()).toBe(true);
      f.push(Buffer.from(" still\ncd"));
      expect(f.partial()?.toString()).toBe("cd");
      f.push(Buffer.from("\n"));
      expect(lines).toEqual(["ab", "cd"]);
      expect(overLongs).toEqual([16]);
    });

    it("skips an over-long line that ends in the same chunk", () => {
      const { f, lines } = framer(2, "skip");
      f.push(Buffer.from("abc\nde\n"));
      expect(lines).toEqual(["de"]);
    });

    it("forgets an unfinished line on reset", () => {
      const { f, lines } = framer(10, "skip");
      f.push(Buffer.from("torn"));
      f.reset();
      expect(f.midLine()).toBe(false);
      f.push(Buffer.from("whole\n"));
      expect(lines).toEqual(["whole"]);
    });
  });

  it("cuts no line after stop() is called from onLine, and says how much of the chunk it took", () => {
    let given = 0;
    const f: LineFramer = new LineFramer({
      maxLineBytes: 10,
      overLong: "stop",
      onLine: () => {
        given++;
        if (given === 3) f.stop();
      },
    });
    // A million empty lines: the three before the stop are the only ones cut.
    expect(f.push(Buffer.alloc(1_000_000, 0x0a))).toBe(3);
    expect(given).toBe(3);
    expect(f.push(Buffer.from("more\n"))).toBe(0);
    expect(given).toBe(3);
  });

  it("gives a line spread over many one-byte chunks whole", () => {
    const { f, lines } = framer(100, "stop");
    for (const char of "one\ntwo\nthree") f.push(Buffer.from(char));
    expect(lines).toEqual(["one", "two"]);
    expect(f.partial()?.toString()).toBe("three");
  });
});
