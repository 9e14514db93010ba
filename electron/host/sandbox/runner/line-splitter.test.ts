import { describe, expect, it } from "vitest";
import { LineSplitter } from "./line-splitter.js";

describe("LineSplitter", () => {
  it("joins a multi-byte character split across chunks", () => {
    const splitter = new LineSplitter(100);
    const bytes = Buffer.from("héllo €\n", "utf8");
    const events = [
      ...splitter.push(bytes.subarray(0, 2)),
      ...splitter.push(bytes.subarray(2, 7)),
      ...splitter.push(bytes.subarray(7)),
    ];
    expect(events).toEqual([{ kind: "line", text: "héllo €" }]);
  });

  it("yields several lines from one chunk and keeps the unfinished rest", () => {
    const splitter = new LineSplitter(100);
    expect(splitter.push(Buffer.from("a\nb\nc"))).toEqual([
      { kind: "line", text: "a" },
      { kind: "line", text: "b" },
    ]);
    expect(splitter.remainder).toBe(1);
    expect(splitter.push(Buffer.from("\n"))).toEqual([{ kind: "line", text: "c" }]);
  });

  it("reports a line over the cap as soon as it passes it, without a newline", () => {
    const splitter = new LineSplitter(10);
    expect(splitter.push(Buffer.alloc(6, 0x61))).toEqual([]);
    expect(splitter.push(Buffer.alloc(6, 0x61))).toEqual([{ kind: "overflow", bytes: 12 }]);
    // Nothing more after an overflow: the run is over.
    expect(splitter.push(Buffer.from("ok\n"))).toEqual([]);
  });

  it("accepts a line of exactly the cap", () => {
    const splitter = new LineSplitter(3);
    expect(splitter.push(Buffer.from("abc\n"))).toEqual([{ kind: "line", text: "abc" }]);
  });
});
