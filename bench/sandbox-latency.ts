// Median latency of `print(1)` three ways, measured side by side in one process:
// through the warm pool, through a cold container, and through a plain hardened
// `docker run -i` of the same image with the same flags (the baseline).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { BRIDGE_LIMITS, PROTOCOL_LIMITS, RUN_LIMITS, SANDBOX_LIMITS } from "../shared/limits.js";
import { findDocker } from "../electron/host/docker/docker-status.js";
import { sandboxImageDir } from "../electron/host/paths.js";
import { RUNNER_PATH } from "../electron/host/sandbox/container-spec.js";
import { imageTagFor, readContext } from "../electron/host/sandbox/image.js";
import { Sandbox } from "../electron/host/sandbox/sandbox.js";
import { median, row, waitFor } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CODE = "print(1)";

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
  // The docker CLI gets only what it needs of this environment, like the app's client.
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn("docker", args, { env, stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    let elapsed = 0;
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      // The runner exits when its input closes, so stdin stays open until the run is done,
      // exactly as the app's attach stream does.
      if (elapsed === 0 && out.includes('"done"')) {
        elapsed = performance.now() - start;
        child.stdin.end();
      }
    });
    child.on("error", reject);
    child.on("close", () => {
      if (elapsed === 0) reject(new Error(`docker run gave no result: ${out}`));
      // Time to the result, as for the app (which removes its container after answering).
      else resolve(elapsed);
    });
    const start_ = {
      type: "start",
      code: CODE,
      stdin: "",
      tools: [],
      limits: {
        args_max_bytes: BRIDGE_LIMITS.argsMaxBytes,
        output_chunk_chars: PROTOCOL_LIMITS.outputChunkChars,
        error_max_chars: RUN_LIMITS.errorMaxChars,
      },
    };
    child.stdin.write(`${nonce}\n${JSON.stringify(start_)}\n`);
  });
}

async function main(): Promise<void> {
  const status = await findDocker();
  if (status.state !== "ready") throw new Error(status.message);
  const image = imageTagFor(readContext(sandboxImageDir()));
  const owner = { home: "codemode-bench", pid: process.pid };
  const warm = new Sandbox({ docker: status.docker, image, owner, poolSize: 1 });
  const cold = new Sandbox({ docker: status.docker, image, owner, poolSize: 0 });
  const times = { warm: [] as number[], cold: [] as number[], plain: [] as number[] };
  try {
    await dockerRunOnce(image); // warm the engine's caches for every path alike
    for (let i = 0; i < ROUNDS; i++) {
      await waitFor(() => warm.idleContainers === 1);
      let t = performance.now();
      await warm.run({ code: CODE });
      times.warm.push(performance.now() - t);
      t = performance.now();
      await cold.run({ code: CODE });
      times.cold.push(performance.now() - t);
      times.plain.push(await dockerRunOnce(image));
      await Promise.all([warm.settle(), cold.settle()]);
    }
  } finally {
    await Promise.all([warm.close(), cold.close()]);
  }
  const base = median(times.plain);
  console.log(`print(1), median of ${ROUNDS} rounds (ratio to plain docker run)`);
  console.log(row("plain hardened `docker run -i` (baseline)", base, base));
  console.log(row("Code Mode sandbox, cold container", median(times.cold), base));
  console.log(row("Code Mode sandbox, warm pool", median(times.warm), base));
}

await main();
