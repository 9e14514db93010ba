// The floor under any Code Mode tool call: one line to a Python process and one line back,
// with no JSON, no bridge, no server. Measured two ways beside bridge-overhead's sides:
// - over pipes: the Python process is a child of this one (what a direct stdio call crosses);
// - through Docker: the same Python in a container of the sandbox image with the sandbox's own
//   hardened spec, over the attach stream the sandbox uses (runner -> containerd shim ->
//   dockerd -> this process, and back).
// The difference between the two is what the Docker boundary itself adds to every call.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Duplex, Writable } from "node:stream";
import type Dockerode from "dockerode";
import { sandboxContainerSpec } from "../electron/host/sandbox/containers/container-spec.js";
import { DockerStreamDemux } from "../electron/host/sandbox/containers/docker-stream-demux.js";
import { currentOwner } from "../electron/host/sandbox/containers/container-owner.js";
import { median } from "./stats.js";

const START = "start-echo";

// Skips what comes before the start marker (dockerode writes its attach options into stdin),
// then echoes each line back with os.write, as the runner writes its lines.
const ECHO = `import os
buf = b""
while b"${START}\\n" not in buf:
    buf += os.read(0, 65536)
buf = buf.split(b"${START}\\n", 1)[1]
while True:
    while b"\\n" not in buf:
        chunk = os.read(0, 65536)
        if not chunk:
            raise SystemExit(0)
        buf += chunk
    line, buf = buf.split(b"\\n", 1)
    os.write(1, line + b"\\n")`;

/** A line channel: write one line, get a promise for the next line that comes back. */
interface Echo {
  roundTrip(): Promise<number>;
  close(): Promise<void>;
}

function lineChannel(input: Writable, subscribe: (onData: (chunk: Buffer) => void) => void) {
  let waiting: (() => void) | undefined;
  let pending = "";
  subscribe((chunk) => {
    pending += chunk.toString("utf8");
    const end = pending.indexOf("\n");
    if (end === -1) return;
    pending = pending.slice(end + 1);
    const done = waiting;
    waiting = undefined;
    done?.();
  });
  input.write(`${START}\n`);
  return async (): Promise<number> => {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      waiting = resolve;
      input.write('{"type":"call","id":1,"tool":"echo","args":{"text":"x"}}\n');
    });
    return performance.now() - started;
  };
}

export function pipeEcho(): Echo {
  const child = spawn("python3", ["-I", "-c", ECHO], { stdio: ["pipe", "pipe", "inherit"] });
  const roundTrip = lineChannel(child.stdin, (on) => child.stdout.on("data", on));
  return {
    roundTrip,
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

export async function dockerEcho(docker: Dockerode, image: string): Promise<Echo> {
  const spec = sandboxContainerSpec(
    image,
    randomBytes(16).toString("hex"),
    currentOwner("codemode-bench"),
    "runc",
    false,
  );
  const container = await docker.createContainer({ ...spec, Cmd: ["python3", "-I", "-c", ECHO] });
  try {
    const stream = (await container.attach({
      stream: true,
      stdin: true,
      stdout: true,
      stderr: true,
      hijack: true,
    })) as Duplex;
    await container.start();
    const roundTrip = lineChannel(stream, (on) => {
      const demux = new DockerStreamDemux((kind, data) => {
        if (kind === "stdout") on(data);
      });
      stream.on("data", (chunk: Buffer) => demux.push(chunk));
    });
    return {
      roundTrip,
      close: async () => {
        stream.destroy();
        await container.remove({ force: true });
      },
    };
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    throw error;
  }
}

/** Median round trip (ms) of `calls` lines one after another, after `warmUp` unmeasured. */
export async function echoRound(echo: Echo, calls: number, warmUp: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < warmUp + calls; i++) {
    const ms = await echo.roundTrip();
    if (i >= warmUp) times.push(ms);
  }
  return median(times);
}
