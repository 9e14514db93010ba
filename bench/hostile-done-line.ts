// What one hostile `done` line costs the host: ~130,000 spaces and one character as the
// error (the line still fits PROTOCOL_LIMITS.lineMaxBytes). Before: JSON.parse, then the old
// traceback tail, whose `/\s+$/` backtracks quadratically. After: parseRunnerLine (which cuts
// the error to DONE_ERROR_MAX_CHARS) and the linear tracebackTail, as run-session
// does. Both are timed in this one process, side by side.
import { PROTOCOL_LIMITS, RUN_LIMITS } from "../shared/limits.js";
import { tracebackTail } from "../electron/host/sandbox/runner/output-capture.js";
import { parseRunnerLine } from "../electron/host/sandbox/runner/runner-messages.js";
import { median } from "./stats.js";
import { report } from "./report.js";
import { ERROR_TAIL_LINES } from "../electron/host/sandbox/runner/run-session.js";

const SPACES = 130_000;
const AFTER_ROUNDS = 20;

/** The code that ran before the fix, kept here only to measure it. */
function oldTracebackTail(text: string, maxLines: number, maxChars: number): string {
  // eslint-disable-next-line regexp/no-super-linear-move -- the old, quadratic code this bench measures
  const lines = text.replace(/\s+$/, "").split("\n");
  let tail = lines.slice(-maxLines).join("\n");
  if (tail.length > maxChars) tail = "…" + tail.slice(tail.length - maxChars + 1);
  return tail;
}

function before(line: string): string {
  const message = JSON.parse(line) as { error: string };
  return oldTracebackTail(message.error, ERROR_TAIL_LINES, RUN_LIMITS.errorMaxChars);
}

function after(line: string): string {
  const parsed = parseRunnerLine(line);
  if (!parsed.ok || parsed.message.type !== "done" || parsed.message.error === null) {
    throw new Error("the hostile line did not parse as a done message");
  }
  return tracebackTail(parsed.message.error, ERROR_TAIL_LINES, RUN_LIMITS.errorMaxChars);
}

function timed(fn: () => string): { ms: number; out: string } {
  const start = performance.now();
  const out = fn();
  return { ms: performance.now() - start, out };
}

const line = JSON.stringify({ type: "done", error: " ".repeat(SPACES) + "x" });
if (Buffer.byteLength(line) > PROTOCOL_LIMITS.lineMaxBytes) throw new Error("line over its cap");

console.log(
  `hostile done line: ${SPACES} spaces + "x" (${Buffer.byteLength(line)} bytes, cap ${PROTOCOL_LIMITS.lineMaxBytes})`,
);
// One round of the old code: it takes seconds, and the host's only thread with it.
const old = timed(() => before(line));
const news = Array.from({ length: AFTER_ROUNDS }, () => timed(() => after(line)));
const newMs = median(news.map((r) => r.ms));
if (news[0]?.out !== old.out) throw new Error("before and after disagree on the result");
const fmt = (ms: number) => `${ms.toFixed(2).padStart(10)} ms`;
console.log(`${"before: JSON.parse + /\\s+$/ tail (1 round)".padEnd(48)} ${fmt(old.ms)}`);
console.log(
  `${`after: parseRunnerLine + trimEnd tail (median of ${AFTER_ROUNDS})`.padEnd(48)} ${fmt(newMs)}`,
);
console.log(`${"before / after".padEnd(48)} ${(old.ms / newMs).toFixed(0).padStart(10)}x`);
report({
  what: `the host reading one hostile \`done\` line (${SPACES.toLocaleString("en")} spaces + "x") as it does now`,
  value: newMs,
  baseline: old.ms,
  baselineWhat: "the code before the fix (JSON.parse + `/\\s+$/` tail), 1 round",
  note: `median of ${AFTER_ROUNDS}`,
});
