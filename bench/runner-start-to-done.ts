// The runner's own work for a warm `print(1)`, without Docker's attach: inside one container of
// the sandbox image, a small Python driver starts runner processes as a warm container holds
// one (started, ready, waiting for its nonce), sends the nonce and the app's start line, and
// times from that write to the `done` line. With CODEMODE_BEFORE_CHECKOUT set to another
// checkout, that checkout's runner.py runs in the same container, rounds interleaved (the order
// within a round alternated), as the baseline.
//
//   CODEMODE_BEFORE_CHECKOUT=/path/to/old/checkout npx tsx bench/runner-start-to-done.ts
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { findDocker } from "../electron/host/sandbox/container-engine/docker-status.js";
import { sandboxImageDir } from "../electron/host/util/paths.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { startLine } from "../electron/host/sandbox/runner/run-session.js";
import { report } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);

/** Reads one JSON line (the runners' sources, the start line, the rounds); prints the times. */
const DRIVER = `
import json, os, py_compile, subprocess, sys, time
job = json.loads(sys.stdin.readline())
paths = {}
for name, source in job["runners"].items():
    with open(f"/tmp/runner_{name}.py", "w") as f:
        f.write(source)
    paths[name] = py_compile.compile(f"/tmp/runner_{name}.py", cfile=f"/tmp/runner_{name}.pyc", doraise=True)
start = job["start"].encode()
def once(runner, round):
    nonce = f"bench{round}"
    p = subprocess.Popen(["python3", "-I", runner, nonce], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    p.stdout.readline()  # ready: waiting for its nonce, as in the warm pool
    time.sleep(0.05)
    t = time.perf_counter()
    p.stdin.write(b"\\n" + nonce.encode() + b"\\n" + start)
    out = b""
    while b'"done"' not in out:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
    ms = (time.perf_counter() - t) * 1000
    p.wait()
    if b'"data":"1\\\\n"' not in out:
        raise SystemExit(f"unexpected output {out!r}")
    return ms
times = {name: [] for name in paths}
names = list(paths)
for round in range(job["rounds"]):
    for name in (names if round % 2 == 0 else names[::-1]):
        times[name].append(once(paths[name], round))
print(json.dumps(times))
`;

function runDriver(image: string, job: unknown): Promise<Record<string, number[]>> {
  const args = ["run", "--rm", "-i", "--network", "none", "--read-only", "--tmpfs", "/tmp"];
  const child = spawn("docker", [...args, image, "python3", "-I", "-c", DRIVER]);
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(`${JSON.stringify(job)}\n`);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`the driver failed (${code}): ${err.slice(-2000)}`));
      else resolve(JSON.parse(out) as Record<string, number[]>);
    });
  });
}

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const runners: Record<string, string> = {
    now: readFileSync(path.join(sandboxImageDir(), "runner.py"), "utf8"),
  };
  const beforeDir = process.env.CODEMODE_BEFORE_CHECKOUT;
  if (beforeDir !== undefined) {
    runners.before = readFileSync(path.join(beforeDir, "sandbox-image", "runner.py"), "utf8");
  }
  // The app's start line for print(1) with no tools, as a warm container gets it.
  const start = startLine({ code: "print(1)", tools: [] }, null);
  const times = await runDriver(image, { runners, start, rounds: ROUNDS });
  const now = median(times.now ?? []);
  const note = `median of ${ROUNDS}, in one container, no Docker attach`;
  const what = "the runner's own work for a warm `print(1)`: start line written -> `done` read";
  if (times.before === undefined) {
    report({ what, value: now, note: `${note}; no baseline: set CODEMODE_BEFORE_CHECKOUT` });
    return;
  }
  report({
    what,
    value: now,
    baseline: median(times.before),
    baselineWhat: "the same with the runner.py of CODEMODE_BEFORE_CHECKOUT (rounds interleaved)",
    note,
  });
}

await main();
