import { describe, expect, it } from "vitest";
import {
  runInContainer,
  runnerLimits,
  startLine,
  RESULTS_UNREAD_MAX_BYTES,
  type Clock,
} from "./run-session.js";
import { freezeTools, toolsJson } from "../../core/ports/tools-json.js";
import type { SandboxContainer } from "../containers/sandbox-container.js";
import type { RunResult } from "../../../../shared/run-result.js";

const TOOLS = freezeTools([
  { name: "a", stub: "async def a() -> str: ...", description: "Does a.", schema: "{}" },
]);
// Code that spells out what the line's own tools field looks like must not confuse the splice.
const CODE = 'print(\'{"type":"start","tools":"staged"}\')\n"\\u2028"';

describe("startLine", () => {
  it("carries the run's own tools when nothing, or something else, was staged", () => {
    for (const staged of [null, toolsJson([{ name: "b", stub: "" }])]) {
      const line = startLine({ code: CODE, tools: TOOLS, stdin: "in" }, staged);
      expect(line.endsWith("\n") && line.indexOf("\n") === line.length - 1).toBe(true);
      expect(JSON.parse(line)).toEqual({
        type: "start",
        tools: [
          { name: "a", stub: "async def a() -> str: ...", description: "Does a.", schema: "{}" },
        ],
        code: CODE,
        stdin: "in",
        down: [],
        held: [],
        limits: runnerLimits(),
      });
    }
  });

  it('says "staged" only when the tools serialize to exactly the staged text', () => {
    const staged = toolsJson(TOOLS);
    const line = startLine({ code: CODE, tools: TOOLS }, staged);
    expect(JSON.parse(line)).toMatchObject({ type: "start", tools: "staged", code: CODE });
    // A copy made apart is compared by its text: staged too.
    const copy = TOOLS.map((t) => ({ ...t }));
    expect(JSON.parse(startLine({ code: CODE, tools: copy }, staged))).toMatchObject({
      tools: "staged",
    });
    // One character off is not.
    const off = [{ ...TOOLS[0]!, description: "Does a!" }];
    expect(JSON.parse(startLine({ code: CODE, tools: off }, staged))).toMatchObject({
      tools: [{ description: "Does a!" }],
    });
  });

  it("sends an empty list, never the staged catalog, for a run without tools", () => {
    const line = startLine({ code: "x" }, toolsJson(TOOLS));
    expect(JSON.parse(line)).toMatchObject({ tools: [] });
  });
});

/** A container that takes the start line and says nothing: the run lasts until the host stops it. */
function silentContainer(): SandboxContainer {
  const fake = {
    staged: null,
    unreadBytes: 0,
    ended: new Promise<void>(() => undefined),
    onStdout: () => undefined,
    sendStart: () => undefined,
    write: () => undefined,
    exit: () => Promise.resolve({ exitCode: null, oomKilled: false }),
  };
  return fake as unknown as SandboxContainer;
}

/** A clock whose timers fire only when the test says, at whatever time it has set. */
function steppedClock() {
  let now = 0;
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const clock: Clock = {
    now: () => now,
    setTimeout(fn, ms) {
      const timer = { fn, ms, cancelled: false };
      timers.push(timer);
      return { cancel: () => (timer.cancelled = true) };
    },
  };
  const fireAt = (time: number) => {
    now = time;
    const live = timers.filter((t) => !t.cancelled);
    timers.length = 0;
    for (const t of live) t.fn();
    return live.length;
  };
  return { clock, timers, fireAt };
}

describe("the run's deadline", () => {
  it("never stops a run before its time, though a timer fires early", async () => {
    const { clock, timers, fireAt } = steppedClock();
    let result: RunResult | undefined;
    void runInContainer(
      silentContainer(),
      { code: "while True:\n    pass", deadlineSeconds: 2 },
      {},
      { deadlineCeilingSeconds: 50, clock },
    ).then((r) => (result = r));
    expect(timers.map((t) => t.ms)).toEqual([2_000]);
    // Node's timer may fire up to a millisecond before the run's own clock says: here 0.6 ms.
    expect(fireAt(1_999.4)).toBe(1);
    await Promise.resolve();
    expect(result).toBeUndefined();
    expect(timers).toHaveLength(1);
    expect(timers[0]!.ms).toBeCloseTo(0.6);
    fireAt(2_000.2);
    await Promise.resolve();
    expect(result).toMatchObject({ stopped: "deadline", timed_out: true, duration_ms: 2_000 });
  });

  it("once re-armed, gives way to a cancel that comes in the rest of its time", async () => {
    const { clock, timers, fireAt } = steppedClock();
    const cancel = new AbortController();
    const run = runInContainer(
      silentContainer(),
      { code: "while True:\n    pass", deadlineSeconds: 2 },
      { signal: cancel.signal },
      { deadlineCeilingSeconds: 50, clock },
    );
    fireAt(1_999.4);
    const rearmed = timers[0]!;
    cancel.abort();
    expect(await run).toMatchObject({ stopped: "cancelled", timed_out: false });
    expect(rearmed.cancelled).toBe(true);
  });
});

describe("the limits docs/security.md states", () => {
  it("are pinned", () => {
    expect({ RESULTS_UNREAD_MAX_BYTES }).toEqual({
      RESULTS_UNREAD_MAX_BYTES: 64 * 1024 * 1024,
    });
  });
});
