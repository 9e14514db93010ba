import { describe, expect, it } from "vitest";
import { StderrTail } from "./stderr-tail.js";

describe("StderrTail", () => {
  it("keeps only the last lines of stderr, cut to the line limit, across chunk borders", () => {
    const tail = new StderrTail(3, 10);
    tail.write("one\ntw");
    tail.write(Buffer.from("o\r\nthree\nfour\n"));
    expect(tail.snapshot()).toEqual(["two", "three", "four"]);
    tail.write("x".repeat(50));
    expect(tail.snapshot()).toEqual(["three", "four", `${"x".repeat(10)}…`]);
    tail.write("x\nlast");
    expect(tail.snapshot()).toEqual(["four", `${"x".repeat(10)}…`, "last"]);
  });

  it("keeps the same last lines when a chunk holds far more lines than it keeps", () => {
    const tail = new StderrTail(3, 10);
    tail.write("before\npartial");
    tail.write(`${Array.from({ length: 10_000 }, (_, i) => `l${i}`).join("\r\n")}\r\nend`);
    expect(tail.snapshot()).toEqual(["l9998", "l9999", "end"]);
    tail.write("\n\n\n\nx");
    expect(tail.snapshot()).toEqual(["", "", "x"]);
    tail.write("\nmore\n");
    expect(tail.snapshot()).toEqual(["", "x", "more"]);
  });
});
