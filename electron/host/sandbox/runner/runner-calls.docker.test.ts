// Tool calls from every kind of event loop the code may run (top-level await, loops in threads,
// loops closed one after another, a call given up on): the runner's reader thread wakes each
// result's own loop. Each case would hang (and fail on the deadline) if a result went to a
// loop nobody runs, as it did in a runner that read results on the first loop that called
// (built and left out: docs/performance.md, one tool call). Real image, under each runtime the engine
// has (gVisor's pipes and poll are its own).
import { afterAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import type { CallOutcome } from "../../core/ports/run-types.js";
import { Sandbox } from "../sandbox.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

const TOOLS = [{ name: "echo", stub: "" }];

/** Answers "held" once the call "release" comes (and before answering that one). */
let releaseHeld: (() => void) | undefined;

/**
 * Answers with the call's `text`: "slow" after 300 ms, "held" as above, any other at once.
 */
function onCall(_tool: string, args: unknown): Promise<CallOutcome> {
  const text = String((args as { text?: unknown }).text);
  const answer: CallOutcome = { ok: true, value: text };
  if (text === "slow") return new Promise((resolve) => setTimeout(() => resolve(answer), 300));
  if (text === "held") return new Promise((resolve) => (releaseHeld = () => resolve(answer)));
  if (text === "release") {
    releaseHeld?.();
    // The held answer goes out first, so the runner has it in hand before release's.
    return new Promise((resolve) => setImmediate(() => resolve(answer)));
  }
  return Promise.resolve(answer);
}

describeEachRuntime(docker, "the runner's tool calls, from any event loop (%s)", (runtime) => {
  const sandbox = fx
    ? new Sandbox({
        engine: fx.engine,
        image: fx.image,
        owner: testOwner(),
        poolSize: 0,
        runtime,
      })
    : null;

  afterAll(async () => {
    await sandbox?.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  const run = (code: string) =>
    sandbox!.run({ code, deadlineSeconds: 20, tools: TOOLS }, { onCall });

  it("a loop in a thread gets its result while the first loop's call waits, blocked", async () => {
    const result = await run(`import asyncio, threading
got = []
first = asyncio.ensure_future(echo({"text": "slow"}))
await asyncio.sleep(0)  # the slow call is out, read by this loop
thread = threading.Thread(target=lambda: got.append(asyncio.run(echo({"text": "thread"}))))
thread.start()
thread.join()  # this loop cannot read now: the thread's loop needs another reader
print(got, await first, await echo({"text": "after"}))`);
    expect(result).toMatchObject({ stdout: "['thread'] slow after\n", error: null });
  });

  it("a loop that closed leaves calls on the next one working", async () => {
    const result = await run(`import asyncio
print(asyncio.run(echo({"text": "one"})))
print(asyncio.run(echo({"text": "two"})))
loop = asyncio.new_event_loop()
print(loop.run_until_complete(echo({"text": "three"})))`);
    expect(result).toMatchObject({ stdout: "one\ntwo\nthree\n", error: null });
  });

  it("loops in threads first, then top-level await, many calls gathered", async () => {
    const result = await run(`import asyncio, threading
got = []
threads = [threading.Thread(target=lambda i=i: got.append(asyncio.run(echo({"text": f"t{i}"}))))
           for i in range(4)]
for t in threads: t.start()
for t in threads: t.join()
many = await asyncio.gather(*(echo({"text": str(i)}) for i in range(40)))
print(sorted(got), many == [str(i) for i in range(40)])`);
    expect(result).toMatchObject({ stdout: "['t0', 't1', 't2', 't3'] True\n", error: null });
  });

  it("a call the code stopped waiting for does not stop later calls", async () => {
    const result = await run(`import asyncio
try:
    await asyncio.wait_for(echo({"text": "held"}), 0.05)
except TimeoutError:
    print("gave up")
print(await echo({"text": "later"}))
# The held result comes in now, for a future cancelled already, just before this answer.
print(await echo({"text": "release"}))
print(await echo({"text": "last"}))`);
    // A late result settled on a future already cancelled would raise in the loop's callback,
    // which asyncio only logs, to the code's stderr: nothing else shows it.
    expect(result).toMatchObject({
      stdout: "gave up\nlater\nrelease\nlast\n",
      stderr: "",
      error: null,
    });
  });
});
