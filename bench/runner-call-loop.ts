// What the sandbox's runner itself adds to a tool call, apart from Docker and the host's bridge:
// the real runner.py, run here as a child process over pipes, with a host that answers each call
// line at once (the host's own parse of the line, then a result line). The code times each
// `await echo(...)` as bridge-overhead.ts does. Beside it, in the same rounds, the pipe floor of
// line-echo-floor.ts: one line to a Python process and back with no JSON, no asyncio, no thread.
// The difference is the runner's own work per call: the JSON line both ways, the future, the
// result's hop from its reader thread to the code's event loop.
//
//   npx tsx bench/runner-call-loop.ts
//
// With CODEMODE_BEFORE_CHECKOUT set to another checkout, its runner.py runs as one more side in
// the same rounds ("before"), so a change to the runner is measured before and after in one run.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { PROTOCOL_LIMITS } from "../shared/limits.js";
import { LineFramer } from "../electron/host/util/line-framer.js";
import { runnerLimits } from "../electron/host/sandbox/runner/run-session.js";
import {
  encodeHostMessage,
  parseRunnerLine,
} from "../electron/host/sandbox/runner/runner-messages.js";
import { echoRound, pipeEcho } from "./line-echo-floor.js";
import { report } from "./report.js";
import { median } from "./stats.js";
import { echoLoopCode } from "./echo-loop.js";

const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARM_UP = 100;
const RUNNER = path.resolve(import.meta.dirname, "..", "sandbox-image", "runner.py");
const BEFORE_DIR = process.env.CODEMODE_BEFORE_CHECKOUT;
const BEFORE_RUNNER =
  BEFORE_DIR === undefined ? null : path.resolve(BEFORE_DIR, "sandbox-image", "runner.py");

const LOOP = echoLoopCode(WARM_UP, CALLS);

/** One run of LOOP in a fresh runner process; resolves with the median call in ms. */
function runnerRound(runner: string): Promise<number> {
  const nonce = randomBytes(16).toString("hex");
  const child = spawn("python3", [runner, nonce], { stdio: ["pipe", "pipe", "inherit"] });
  let stdout = "";
  return new Promise<number>((resolve, reject) => {
    const lines = new LineFramer({
      maxLineBytes: PROTOCOL_LIMITS.lineMaxBytes,
      overLong: "stop",
      onOverLong: () => reject(new Error("a line too long")),
      onLine: (bytes) => {
        const text = bytes.toString("utf8");
        if (text === '{"type":"ready"}') return;
        const parsed = parseRunnerLine(text);
        if (!parsed.ok) return reject(new Error(parsed.reason));
        const message = parsed.message;
        if (message.type === "call") {
          child.stdin.write(
            encodeHostMessage({ type: "result", id: message.id, ok: true, value: "x" }),
          );
        } else if (message.type === "output") {
          stdout += message.data;
        } else if (message.type === "done") {
          if (message.error !== null) return reject(new Error(message.error));
          resolve(Number(stdout.trim()));
        }
      },
    });
    child.on("error", reject);
    child.stdout.on("data", (chunk: Buffer) => lines.push(chunk));
    child.stdin.write(`\n${nonce}\n`);
    child.stdin.write(
      encodeHostMessage({
        type: "start",
        code: LOOP,
        stdin: "",
        tools: [{ name: "echo", stub: "", description: "", schema: null }],
        down: [],
        limits: runnerLimits(),
      }),
    );
  });
}

const floor = pipeEcho();
const runner: number[] = [];
const before: number[] = [];
const pipe: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Which side goes first alternates, so neither always follows the floor's round.
    if (BEFORE_RUNNER !== null && round % 2 === 0) before.push(await runnerRound(BEFORE_RUNNER));
    runner.push(await runnerRound(RUNNER));
    if (BEFORE_RUNNER !== null && round % 2 === 1) before.push(await runnerRound(BEFORE_RUNNER));
    pipe.push(await echoRound(floor, CALLS, WARM_UP));
  }
} finally {
  await floor.close();
}
const floorMs = median(pipe);
const runnerMs = median(runner);
console.log(
  `one call from Python code to a host that answers at once, over pipes: median of ${CALLS} ` +
    `calls per round, median of ${ROUNDS} rounds`,
);
console.log(
  `floor: a line to Python and back     ${floorMs.toFixed(3)} ms   fastest round ${Math.min(...pipe).toFixed(3)} ms`,
);
console.log(
  `the runner's call (await echo(...)) ${runnerMs.toFixed(3)} ms   fastest round ${Math.min(...runner).toFixed(3)} ms` +
    `   (runner's own work ${(runnerMs - floorMs).toFixed(3)} ms per call)`,
);
if (BEFORE_RUNNER !== null) {
  const beforeMs = median(before);
  console.log(
    `before: the same with ${BEFORE_RUNNER}  ${beforeMs.toFixed(3)} ms   fastest round ${Math.min(...before).toFixed(3)} ms` +
      `   (runner's own work ${(beforeMs - floorMs).toFixed(3)} ms per call; after/before ${(runnerMs / beforeMs).toFixed(2)}x,` +
      ` rounds after ${runner.map((v) => v.toFixed(3)).join(", ")}, before ${before.map((v) => v.toFixed(3)).join(", ")})`,
  );
}
report({
  what: "runner.py call over pipes, host answering at once",
  value: runnerMs,
  baseline: floorMs,
  baselineWhat: "a line to a Python echo and back over pipes",
  note: `runner's own work ${(runnerMs - floorMs).toFixed(3)} ms per call`,
});
