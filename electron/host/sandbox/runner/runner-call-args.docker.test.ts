// A tool call's arguments as the runner encodes them (its encoders are made once and the
// arguments' bytes measured are the bytes sent): what the host parses is what the code gave,
// keys in order and non-ASCII text whole; the argument limit holds at exactly its bytes; what
// JSON cannot carry fails in the code with the same ToolError, and the run goes on.
import { expect, it } from "vitest";
import { BRIDGE_LIMITS } from "../../../../shared/limits.js";
import { coldSandbox } from "../../../../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../../../../test-support/docker.js";
import type { CallOutcome } from "../../core/ports/run-types.js";

// Fails under CI=true when there is no engine, or it lacks runsc.
const docker = await dockerOnRuntimes();
const { fx } = docker;

const TOOLS = [{ name: "echo", stub: "" }];

/** Answers with the arguments as the host parsed them, written back as JSON. */
function onCall(_tool: string, args: unknown): Promise<CallOutcome> {
  return Promise.resolve({ ok: true, value: JSON.stringify(args) });
}

describeEachRuntime(docker, "a tool call's arguments on the wire (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  const run = (code: string) =>
    sandbox.run({ code, deadlineSeconds: 20, tools: TOOLS }, { onCall });

  it("reach the host as the code gave them; the limit is the bytes sent; bad ones fail in the code", async () => {
    const limit = BRIDGE_LIMITS.argsMaxBytes;
    const result = await run(`import json
cases = [
    {"z": 1, "a": [1.5, None, True, {"\\u00e9t\\u00e9": "\\u6570\\u636e \\U0001f600 \\u2028 \\x00\\n\\"\\\\"}], "m": -(2**53)},
    {"b": {"c": {"d": [[], {}, ""]}}, "y": 0.1},
]
for params in cases:
    # JSON.stringify on the host writes these as Python does: what it parsed is what was sent.
    print(await echo(params) == json.dumps(params, ensure_ascii=False, separators=(",", ":")))
# {"t":"..."} is 8 bytes, each e-acute 2: exactly the limit, then one byte over.
at_limit = {"t": "\\u00e9" * ((${limit} - 8) // 2)}
print(len((await echo(at_limit)).encode()))
try:
    await echo({"t": at_limit["t"] + "a"})
except ToolError as e:
    print(e)
for bad in ({"x": float("nan")}, {"x": float("inf")}, {"x": "\\ud800"}, {"\\udfff": 1}, {"x": 10**5000}, {(1,): 2}, {"x": b"1"}):
    try:
        await echo(bad)
    except ToolError as e:
        print(str(e).split(":")[0], "|", type(e.__cause__).__name__)
print(await echo({"after": "still"}))`);
    expect(result.error).toBeNull();
    const sent = "arguments cannot be sent as JSON";
    expect(result.stdout.split("\n")).toEqual([
      "True",
      "True",
      String(limit),
      `echo() arguments are ${limit + 1} bytes, the limit is ${limit} bytes`,
      ...Array<string>(7).fill(`echo() ${sent} | NoneType`),
      '{"after":"still"}',
      "",
    ]);
  });
});
