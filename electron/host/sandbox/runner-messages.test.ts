import { describe, expect, it } from "vitest";
import { encodeHostMessage, parseRunnerLine } from "./runner-messages.js";

describe("runner messages", () => {
  it("accepts the three known shapes", () => {
    expect(parseRunnerLine('{"type":"call","id":1,"tool":"add","args":{"a":1}}').ok).toBe(true);
    expect(parseRunnerLine('{"type":"output","stream":"stdout","data":"x"}').ok).toBe(true);
    expect(parseRunnerLine('{"type":"done","error":null}').ok).toBe(true);
  });

  it("refuses anything else as hostile", () => {
    for (const line of [
      "not json",
      "[]",
      "null",
      '{"type":"call","id":0,"tool":"a","args":{}}',
      '{"type":"call","id":1.5,"tool":"a","args":{}}',
      '{"type":"call","id":1,"tool":"a","args":{},"x":1}',
      '{"type":"output","stream":"stdin","data":"x"}',
      '{"type":"done"}',
      '{"type":"exec","code":"x"}',
    ]) {
      expect(parseRunnerLine(line).ok, line).toBe(false);
    }
  });

  it("encodes one message per line even with line separators inside", () => {
    const text = encodeHostMessage({ type: "result", id: 1, ok: true, value: "a\nb\u2028c" });
    expect(text.endsWith("\n")).toBe(true);
    expect(text.slice(0, -1)).not.toContain("\n");
  });
});
