// Attack: the code writes output chunks padded with what JSON.parse throws away (whitespace up
// to the line cap) straight to the protocol pipe. Each costs the host a parse of 128 KiB while
// counting as one message, so before the fix 100,000 of them fitted under the message cap and
// kept the host's thread ~33 % busy until the run's deadline.
import { expect, it } from "vitest";
import { PROTOCOL_LIMITS } from "../../../../shared/limits.js";
import { coldSandbox } from "../../../../test-support/cold-sandbox.js";
import { describeEachRuntime, dockerOnRuntimes } from "../../../../test-support/docker.js";

const docker = await dockerOnRuntimes();
const { fx } = docker;

// fd 4 is the runner's protocol output; a write to a pipe may be partial (gVisor's often are),
// so each line is written whole before the next.
const padded = (filler: string) => `
import os
line = b'{"type":"output","stream":"stdout","data":"x"${filler}}\\n'
def put(data):
    while data:
        data = data[os.write(4, data):]
while True:
    put(line)
`;
const FILLERS = {
  whitespace: `' + b' ' * (${PROTOCOL_LIMITS.lineMaxBytes} - 100) + b'`,
  "a key given twice": `,"data":"' + b'y' * (${PROTOCOL_LIMITS.lineMaxBytes} - 100) + b'","data":"x"`,
};

describeEachRuntime(docker, "output lines padded with what JSON leaves out (%s)", (runtime) => {
  const sandbox = coldSandbox(fx!, runtime);

  for (const [what, filler] of Object.entries(FILLERS)) {
    it(`${what}: the first such line ends the run`, async () => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const result = await sandbox.run({ code: padded(filler), deadlineSeconds: 6 }, {});
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      console.log(
        `${runtime}, ${what}: ${result.stopped} after ${wall.toFixed(0)} ms, host CPU ${((used.user + used.system) / 10 / wall).toFixed(0)} %`,
      );
      expect(result).toMatchObject({
        stopped: "protocol_violation",
        error: "the run was stopped: a line from the sandbox was padded with what JSON leaves out",
      });
    }, 30_000);
  }
});
