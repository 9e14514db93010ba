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
});
