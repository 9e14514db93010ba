import { describe, expect, it } from "vitest";
import { READY_LINE, ReadyLineMatcher } from "./ready-line.js";

const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

describe("ReadyLineMatcher", () => {
  it("takes the exact line, in any split, and passes on what follows", () => {
    for (let cut = 0; cut <= READY_LINE.length; cut++) {
      const matcher = new ReadyLineMatcher();
      const whole = READY_LINE + '{"type":"done"';
      const first = matcher.push(bytes(whole.slice(0, cut)));
      const rest = matcher.push(bytes(whole.slice(cut)));
      expect(matcher.state).toBe("ready");
      expect(Buffer.concat([first, rest]).toString()).toBe('{"type":"done"');
    }
  });

  it("waits while only a prefix has come", () => {
    const matcher = new ReadyLineMatcher();
    expect(matcher.push(bytes('{"type":"rea')).length).toBe(0);
    expect(matcher.state).toBe("waiting");
  });

  it("on any other first line gives back every byte as written", () => {
    for (const other of ['{"type":"done","error":null}\n', '{"type":"ready" }\n', "x", "\n"]) {
      for (let cut = 0; cut <= other.length; cut++) {
        const matcher = new ReadyLineMatcher();
        const out = [
          matcher.push(bytes(other.slice(0, cut))),
          matcher.push(bytes(other.slice(cut))),
        ];
        expect(matcher.state).toBe("mismatch");
        expect(Buffer.concat(out).toString()).toBe(other);
      }
    }
  });

  it("looks at no more than the line's length of a flood", () => {
    const matcher = new ReadyLineMatcher();
    const flood = Buffer.alloc(1 << 20, 0x7b); // "{{{{...": the first byte matches, the second not
    expect(matcher.push(flood).length).toBe(flood.length + 0);
    expect(matcher.state).toBe("mismatch");
    // Once decided, later chunks pass through untouched (a second ready line is the run's).
    expect(matcher.push(bytes(READY_LINE)).toString()).toBe(READY_LINE);
  });
});
