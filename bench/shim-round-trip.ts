// Median round trip of run_python `print(1)` as an MCP client sees it (the SDK's Client ->
// `codemode shim` -> local socket -> `codemode daemon` -> warm sandbox container, and back),
// measured side by side in one process with a plain hardened `docker run -i` of the same
// image with the same flags (the baseline of bench/sandbox-latency.ts).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { SANDBOX_LIMITS } from "../shared/limits.js";
import { findDocker } from "../electron/host/docker/docker-status.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { RUNNER_PATH } from "../electron/host/sandbox/container-spec.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import {
  assertHostBuilt,
  cleanUpHosts,
  connectShim,
  homeContainers,
  makeHome,
  startDaemon,
  until,
  writeServers,
} from "../test-support/daemon.js";
import { median, row } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

// The same call as bench/sandbox-latency.ts (not exported there: importing that module
// runs its bench), but stdin stays open until the runner says done: the runner exits
// quietly as soon as its host closes stdin (runner-protocol.md), so ending stdin right
// after the start line, as sandbox-latency.ts does, kills the run before it prints.
function dockerRunOnce(image: string): Promise<number> {
  const nonce = randomBytes(8).toString("hex");
  const start = performance.now();
  const args = [
    "run",
    "--rm",
    "-i",
    "--network",
    "none",
    "--ipc",
    "none",
    "--read-only",
    "--tmpfs",
    `/tmp:${SANDBOX_LIMITS.tmpfsOptions},size=${SANDBOX_LIMITS.tmpfsBytes}`,
    "--user",
    SANDBOX_LIMITS.user,
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--pids-limit",
    String(SANDBOX_LIMITS.pids),
    "--memory",
    String(SANDBOX_LIMITS.memoryBytes),
    "--memory-swap",
    String(SANDBOX_LIMITS.memorySwapBytes),
    "--cpus",
    "1",
    "--ulimit",
    `nofile=${SANDBOX_LIMITS.nofile}:${SANDBOX_LIMITS.nofile}`,
    "--log-driver",
    "none",
    image,
    "python3",
    "-I",
    RUNNER_PATH,
    nonce,
  ];
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn("docker", args, { env, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes('"done"')) child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", () => {
      if (!out.includes('"done"')) reject(new Error(`docker run gave no result: ${out}`));
      else resolve(performance.now() - start);
    });
    const start_ = {
      type: "start",
      code: CODE,
      stdin: "",
      tools: [],
      limits: { args_max_bytes: 16384, output_chunk_chars: 4096, error_max_chars: 4096 },
    };
    child.stdin.write(`${nonce}\n${JSON.stringify(start_)}\n`);
  });
}

async function main(): Promise<void> {
  assertHostBuilt();
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const docker = status.docker;
  const image = imageTagFor(readContext(sandboxImageDir()));
  const home = makeHome("codemode-bench-");
  writeServers(home, {});
  const times = { shim: [] as number[], plain: [] as number[], connect: [] as number[] };
  try {
    const daemon = await startDaemon(home);
    let t = performance.now();
    const shim = await connectShim(home, { name: "bench", version: "1" });
    times.connect.push(performance.now() - t);
    // The warm pool's one container, started and idle: what every measured run takes.
    const poolReady = async (): Promise<void> => {
      await until(
        async () => {
          const list = await homeContainers(docker, home);
          return list.length === 1 && list[0]?.state === "running";
        },
        "the warm pool to refill",
        30_000,
      );
      // Started is not yet handed to the pool: give it a moment.
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    await dockerRunOnce(image); // warm the engine's caches for every path alike
    await shim.run(CODE);
    for (let i = 0; i < ROUNDS; i++) {
      await poolReady();
      t = performance.now();
      const result = await shim.run(CODE);
      times.shim.push(performance.now() - t);
      if (result.stdout !== "1\n") throw new Error(`unexpected result ${JSON.stringify(result)}`);
      times.plain.push(await dockerRunOnce(image));
    }
    await shim.close();
    for (let i = 0; i < Math.min(ROUNDS, 5); i++) {
      t = performance.now();
      const extra = await connectShim(home, { name: "bench-connect", version: "1" });
      times.connect.push(performance.now() - t);
      await extra.close();
    }
    await daemon.stop();
  } finally {
    await cleanUpHosts(docker);
  }
  const base = median(times.plain);
  console.log(`run_python print(1) through shim + daemon, median of ${ROUNDS} rounds`);
  console.log(row("plain hardened `docker run -i` (baseline)", base, base));
  console.log(row("MCP client -> shim -> daemon, warm pool", median(times.shim), base));
  console.log(row("(client start: spawn shim + initialize)", median(times.connect), base));
}

await main();
