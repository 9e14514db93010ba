// Attack: the code stops the runner reading its results, then forges
// calls whose results are big. The host writes every result into the container's stdin; with
// no one reading, Docker's pipes fill and the rest waits in the host's memory.
import { expect, it } from "vitest";
import { coldSandbox } from "../../../../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../../../../test-support/docker.js";
import type { CallOutcome } from "../../core/ports/run-types.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

// A result as big as the bridge lets through (64 KiB), of control characters, each of which
// JSON writes as six bytes in the result line: ~384 KiB a line.
const BIG = "\u0001".repeat(64 * 1024);
let answered = 0;
function onCall(): Promise<CallOutcome> {
  answered++;
  return Promise.resolve({ ok: true, value: BIG });
}

// fd 3 is the runner's protocol input, fd 4 its output (runner.py's _take_protocol_fds). The
// reader thread is blocked reading fd 3: one result wakes it, and its next read is on a pipe
// no one writes. Then 400 forged calls, in bursts under the 256 in flight.
const ATTACK = `
import os, time
r, w = os.pipe()
os.dup2(r, 3)
def call(i):
    os.write(4, ('{"type":"call","id":%d,"tool":"echo","args":{}}\\n' % i).encode())
call(10**6)
time.sleep(0.5)
for burst in range(4):
    for i in range(100):
        call(10**6 + 1 + burst * 100 + i)
    time.sleep(0.3)
time.sleep(60)
`;
import { RESULTS_UNREAD_MAX_BYTES } from "./run-session.js";

describeEachRuntime(docker, "results the code leaves unread (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  it("a run that stops reading its results is stopped, not buffered for", async () => {
    answered = 0;
    const before = process.memoryUsage().rss;
    let peak = before;
    const meter = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const result = await sandbox.run(
      { code: ATTACK, deadlineSeconds: 8, tools: [{ name: "echo", stub: "" }] },
      { onCall },
    );
    clearInterval(meter);
    console.log(
      `${runtime}: ${answered} answered, host grew ${((peak - before) / 1e6).toFixed(0)} MB`,
    );
    expect(result).toMatchObject({
      stopped: "protocol_violation",
      error: `the run was stopped: the sandbox left more than ${RESULTS_UNREAD_MAX_BYTES} bytes of tool results unread`,
    });
  }, 30_000);
});
