// The runner ends by itself when its host goes away (stdin closed mid-run), even while no event
// loop of the code is running to see it: its reader thread sees the end of its input. Pinned
// under each runtime the engine has, since gVisor has its own pipes and poll. Raw container, no deadline:
// nothing but the runner's own exit can end these within the wait.
import type { Duplex } from "node:stream";
import { afterAll, expect, it } from "vitest";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { runnerLimits } from "./run-session.js";
import { encodeHostMessage } from "./runner-messages.js";
import { SandboxContainer } from "../containers/sandbox-container.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

/** How long the runner may take to end once its stdin is closed (a container stop is 10 s). */
const EXIT_WAIT_MS = 5_000;

/** Runs `code` until it prints "blocked", closes the runner's stdin, and returns its exit. */
async function hostGoesAway(runtime: SandboxRuntime, code: string): Promise<number | null> {
  const container = await SandboxContainer.start(fx!.engine, fx!.image, testOwner(), runtime);
  try {
    expect(await container.ready).toBe(true);
    let out = "";
    const blocked = new Promise<void>((resolve) => {
      container.onStdout((chunk) => {
        out += chunk.toString("utf8");
        if (out.includes("blocked")) resolve();
      });
    });
    container.write(`\n${container.nonce}\n`);
    container.write(
      encodeHostMessage({
        type: "start",
        code,
        stdin: "",
        tools: [{ name: "echo", stub: "", description: "", schema: null }],
        down: [],
        held: [],
        limits: runnerLimits(),
      }),
    );
    await blocked;
    // The host's side of stdin closes (Docker closes the container's: StdinOnce), as when
    // the host process dies; the calls out are never answered. The attach stream is the
    // engine's Duplex under the container's SandboxAttach.
    (container as unknown as { stream: { stream: Duplex } }).stream.stream.end();
    const exited = await Promise.race([
      container.container.wait().then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), EXIT_WAIT_MS)),
    ]);
    expect(exited).toBe(true);
    return (await container.exit()).exitCode;
  } finally {
    await container.remove();
  }
}

describeEachRuntime(docker, "the runner when its host goes away (%s)", (runtime) => {
  afterAll(async () => {
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("ends while the code blocks the only thread, with no call made", async () => {
    const code = `import time\nprint("blocked", flush=True)\ntime.sleep(60)`;
    expect(await hostGoesAway(runtime, code)).toBe(0);
  });

  it("ends while a call is out on a loop the code blocks", async () => {
    const code = `import asyncio, time
call = asyncio.ensure_future(echo({"text": "never answered"}))
await asyncio.sleep(0.1)  # the call is out, and this loop reads its result
print("blocked", flush=True)
time.sleep(60)`;
    expect(await hostGoesAway(runtime, code)).toBe(0);
  });

  it("ends while a loop in a thread waits on a call and the main thread blocks", async () => {
    const code = `import asyncio, threading, time
threading.Thread(target=lambda: asyncio.run(echo({"text": "never answered"})), daemon=True).start()
time.sleep(0.2)
print("blocked", flush=True)
threading.Event().wait()`;
    expect(await hostGoesAway(runtime, code)).toBe(0);
  });
});
