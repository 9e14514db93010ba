import { describe, expect, it } from "vitest";
import { PROTOCOL_LIMITS, RUN_LIMITS } from "../../../../shared/limits.js";
import {
  checkBySchema,
  encodeHostMessage,
  parseRunnerLine,
  DONE_ERROR_MAX_CHARS,
  LINE_SLACK_CHARS,
} from "./runner-messages.js";

describe("runner messages", () => {
  it("accepts the three known shapes", () => {
    expect(parseRunnerLine('{"type":"call","id":1,"tool":"add","args":{"a":1}}').ok).toBe(true);
    expect(parseRunnerLine('{"type":"output","stream":"stdout","data":"x"}').ok).toBe(true);
    expect(parseRunnerLine('{"type":"done","error":null}').ok).toBe(true);
    // The check's report (the session takes it only as a run's first message).
    expect(parseRunnerLine('{"type":"done","error":"x","check":true}').ok).toBe(true);
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
      '{"type":"done","error":"x","check":false}',
      '{"type":"done","error":"x","check":"yes"}',
      '{"type":"exec","code":"x"}',
    ]) {
      expect(parseRunnerLine(line).ok, line).toBe(false);
    }
  });

  it("takes only tool names the catalog could have produced: bounded ASCII identifiers", () => {
    const call = (tool: string) => JSON.stringify({ type: "call", id: 1, tool, args: {} });
    const max = PROTOCOL_LIMITS.toolNameMaxChars;
    for (const tool of ["add", "_x", "toy__add", "A1_b", "a".repeat(max)]) {
      expect(parseRunnerLine(call(tool)).ok, tool).toBe(true);
    }
    for (const tool of [
      "",
      "1add",
      "add\r\n2026-01-01 allowed",
      "\u001b]52;c;aGk=\u0007",
      "=HYPERLINK(1)",
      "caf\u00e9",
      "a\u202eb",
      "a b",
      "a-b",
    ]) {
      expect(parseRunnerLine(call(tool)), JSON.stringify(tool)).toEqual({
        ok: false,
        reason: "a call's tool name was not an identifier",
      });
    }
    expect(parseRunnerLine(call("a".repeat(max + 1)))).toEqual({
      ok: false,
      reason: "a call's tool name was too long",
    });
  });

  it("refuses an output chunk over its cap", () => {
    const output = (data: string) => JSON.stringify({ type: "output", stream: "stdout", data });
    const max = PROTOCOL_LIMITS.outputChunkChars;
    expect(parseRunnerLine(output("x".repeat(max))).ok).toBe(true);
    expect(parseRunnerLine(output("x".repeat(max + 1)))).toEqual({
      ok: false,
      reason: "an output chunk was over its size",
    });
  });

  it("cuts a done error to its last doneErrorMaxChars before anything reads it", () => {
    const done = (error: string) => JSON.stringify({ type: "done", error });
    const max = DONE_ERROR_MAX_CHARS;
    const hostile = " ".repeat(130_000) + "x";
    const parsed = parseRunnerLine(done(hostile));
    expect(parsed).toEqual({
      ok: true,
      message: { type: "done", error: hostile.slice(-max) },
    });
    const honest = "Traceback\n" + "e".repeat(RUN_LIMITS.errorMaxChars);
    expect(parseRunnerLine(done(honest))).toEqual({
      ok: true,
      message: { type: "done", error: honest },
    });
    // Never starts inside a surrogate pair.
    const astral = "\u{1F600}".repeat(max);
    const cut = parseRunnerLine(done(astral));
    expect(cut.ok && cut.message.type === "done" && cut.message.error).toBe(
      "\u{1F600}".repeat(max / 2),
    );
    const shifted = parseRunnerLine(done("\u{1F600}".repeat(max / 2) + "a"));
    expect(shifted.ok && shifted.message.type === "done" && shifted.message.error).toBe(
      "\u{1F600}".repeat(max / 2 - 1) + "a",
    );
  });

  it("takes the exception a done reports as data, each part cut, nothing else beside it", () => {
    const done = (exception: unknown) =>
      JSON.stringify({ type: "done", error: "Traceback...", exception });
    expect(parseRunnerLine(done({ type: "ValueError", message: "bad" }))).toEqual({
      ok: true,
      message: {
        type: "done",
        error: "Traceback...",
        exception: { type: "ValueError", message: "bad" },
      },
    });
    const max = DONE_ERROR_MAX_CHARS;
    const huge = parseRunnerLine(done({ type: "T".repeat(5_000), message: "m".repeat(60_000) }));
    expect(huge.ok && huge.message.type === "done" && huge.message.exception).toEqual({
      type: "T".repeat(200),
      message: "m".repeat(max),
    });
    // Never ends inside a surrogate pair.
    const astral = parseRunnerLine(done({ type: "E", message: "a" + "\u{1F600}".repeat(max) }));
    expect(astral.ok && astral.message.type === "done" && astral.message.exception).toEqual({
      type: "E",
      message: "a" + "\u{1F600}".repeat(max / 2 - 1),
    });
    for (const bad of [
      { type: "E" },
      { type: 1, message: "m" },
      { type: "E", message: "m", x: 1 },
    ]) {
      expect(parseRunnerLine(done(bad)).ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it("refuses a line padded with what JSON leaves out, not one the runner could write", () => {
    const padded = "a line from the sandbox was padded with what JSON leaves out";
    const slack = LINE_SLACK_CHARS;
    for (const line of [
      `{"type":"output","stream":"stdout","data":""${" ".repeat(slack * 2)}}`,
      `{"type":"output","stream":"stdout","data":"${"y".repeat(slack * 8)}","data":""}`,
      `{"type":"image_end","id":1.${"0".repeat(slack * 2)}}`,
      `{"type":"image_data","id":1,"data":"AAAA"${"\t".repeat(slack * 2)}}`,
    ]) {
      expect(parseRunnerLine(line)).toEqual({ ok: false, reason: padded });
    }
    // The runner's own lines at their worst: every character of a chunk escaped as \\uXXXX.
    const escaped = JSON.stringify({
      type: "output",
      stream: "stdout",
      data: "\u0001".repeat(PROTOCOL_LIMITS.outputChunkChars),
    });
    expect(escaped.length).toBeGreaterThan(5 * PROTOCOL_LIMITS.outputChunkChars);
    expect(parseRunnerLine(escaped).ok).toBe(true);
    // Calls are counted by the budget instead: Python writes a big integer in full.
    const call = `{"type":"call","id":1,"tool":"a","args":{"n":${"9".repeat(slack * 4)}}}`;
    expect(parseRunnerLine(call).ok).toBe(true);
    // And done ends the run: its error is cut, not refused.
    expect(parseRunnerLine(`{"type":"done","error":"${" ".repeat(slack * 100)}x"}`).ok).toBe(true);
  });

  it("encodes one message per line even with line separators inside", () => {
    const text = encodeHostMessage({ type: "result", id: 1, ok: true, value: "a\nb\u2028c" });
    expect(text.endsWith("\n")).toBe(true);
    expect(text.slice(0, -1)).not.toContain("\n");
  });
});

describe("the fast path for calls and output chunks", () => {
  const long = "a".repeat(PROTOCOL_LIMITS.toolNameMaxChars + 1);
  const chunk = "x".repeat(PROTOCOL_LIMITS.outputChunkChars);
  // Well-formed lines (taken by the fast path) and near misses of every check it makes.
  const lines = [
    '{"type":"call","id":1,"tool":"echo","args":{"text":"x"}}',
    '{"args":null,"tool":"_e9","id":9007199254740991,"type":"call"}',
    '{"type":"call","id":1,"tool":"echo","args":[1,2]}',
    '{"type":"call","id":1,"tool":"echo"}',
    '{"type":"call","id":1,"tool":"echo","args":{},"extra":1}',
    '{"type":"call","id":1,"tool":"echo","args":{},"__proto__":{}}',
    '{"type":"call","id":0,"tool":"echo","args":{}}',
    '{"type":"call","id":-1,"tool":"echo","args":{}}',
    '{"type":"call","id":1.5,"tool":"echo","args":{}}',
    '{"type":"call","id":9007199254740992,"tool":"echo","args":{}}',
    '{"type":"call","id":"1","tool":"echo","args":{}}',
    '{"type":"call","id":1,"tool":"9echo","args":{}}',
    '{"type":"call","id":1,"tool":"ech-o","args":{}}',
    '{"type":"call","id":1,"tool":"","args":{}}',
    `{"type":"call","id":1,"tool":"${long}","args":{}}`,
    '{"type":"call","id":1,"tool":5,"args":{}}',
    '{"type":"output","stream":"stdout","data":"hi"}',
    '{"data":"","stream":"stderr","type":"output"}',
    `{"type":"output","stream":"stdout","data":"${chunk}"}`,
    `{"type":"output","stream":"stdout","data":"${chunk}x"}`,
    '{"type":"output","stream":"stdin","data":"hi"}',
    '{"type":"output","stream":"stdout","data":1}',
    '{"type":"output","stream":"stdout"}',
    '{"type":"output","stream":"stdout","data":"hi","more":true}',
    '{"type":"done","error":null}',
    '["call"]',
    "null",
    '"call"',
  ];
  it.each(lines)("gives the schemas' verdict for %s", (line) => {
    expect(parseRunnerLine(line)).toEqual(checkBySchema(JSON.parse(line)));
  });
});
