// What the runner costs before the code runs: it imports asyncio (~70 ms of CPU in every
// container, with the ssl and inspect modules it pulls in) only when the code awaits, so a run
// that never does is spared it. Real image: sys.modules tells what was imported, and awaiting
// tools still works without the code importing asyncio itself. The compiled runner, the frames it
// hides from the code's traceback and awaiting tools are pinned on each runtime the engine has.
import { afterAll, describe, expect, it } from "vitest";
import { coldSandbox } from "../../../../test-support/cold-sandbox.js";
import {
  describeEachRuntime,
  dockerOnRuntimes,
  leftoverContainers,
  testOwner,
} from "../../../../test-support/docker.js";
import { RUNNER_PATH } from "../containers/container-spec.js";
import { Sandbox } from "../sandbox.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

describeEachRuntime(docker, "the runner's start-up (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  it("runs the runner compiled when the image was built, and still hides its frames from a traceback", async () => {
    // A failed tool call raises inside the runner's stub, under the code's frame: the frames
    // of the runner are what the traceback must leave out.
    const result = await sandbox.run(
      {
        code: "print(open('/proc/self/cmdline', 'rb').read().split(b'\\0')[2].decode())\ndef f():\n    return echo()\nawait f()",
        tools: [{ name: "echo", stub: "async def echo() -> str: ..." }],
      },
      { onCall: () => Promise.resolve({ ok: false, message: "the tool failed" }) },
    );
    expect(result.stdout).toBe(`${RUNNER_PATH}\n`);
    expect(RUNNER_PATH).toMatch(/\.pyc$/);
    expect(result.error).toContain("the tool failed");
    expect(result.error).toContain('File "<code>", line 4');
    expect(result.error).not.toContain("runner.py");
  });

  it("top-level await of tools, gathered, works without the code importing asyncio", async () => {
    const result = await sandbox.run(
      {
        code: "a, b = await __import__('asyncio').gather(echo({'x': 1}), echo({'x': 2}))\nprint(a, b)\nprint(await echo())",
        tools: [{ name: "echo", stub: "async def echo(params: dict | None = None) -> str: ..." }],
      },
      { onCall: (_tool, args) => Promise.resolve({ ok: true, value: JSON.stringify(args) }) },
    );
    expect(result).toMatchObject({ stdout: '{"x":1} {"x":2}\n{}\n', error: null });
    const plain = await sandbox.run(
      { code: "print(await echo({'y': 3}))", tools: [{ name: "echo", stub: "" }] },
      { onCall: (_tool, args) => Promise.resolve({ ok: true, value: JSON.stringify(args) }) },
    );
    expect(plain).toMatchObject({ stdout: '{"y":3}\n', error: null });
  });
});

// What the runner imports is the same Python on every runtime: a cost, not what the code may
// reach, so it is pinned on the default runtime only.
describe.skipIf(!fx)("the runner's start-up cost (runc)", () => {
  const sandbox = fx
    ? new Sandbox({ engine: fx.engine, image: fx.image, owner: testOwner(), poolSize: 0 })
    : null;

  afterAll(async () => {
    await sandbox?.close();
    expect(await leftoverContainers(fx!.docker)).toEqual([]);
  });

  it("does not import asyncio for code that never awaits", async () => {
    const result = await sandbox!.run({ code: "import sys\nprint('asyncio' in sys.modules)" });
    expect(result).toMatchObject({ stdout: "False\n", error: null });
  });
});
