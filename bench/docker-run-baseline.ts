// The baseline every sandbox bench compares with: one plain, hardened `docker run -i` of
// the sandbox image with the same flags the app gives its containers, driven over the
// runner protocol, timed to the result.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { SANDBOX_LIMITS } from "../shared/limits.js";
import { RUNNER_PATH } from "../electron/host/sandbox/containers/container-spec.js";
import { runnerLimits } from "../electron/host/sandbox/runner/run-session.js";

/** What dockerRunOnce measures, as a row of the table names its baseline. */
export const DOCKER_RUN_BASELINE =
  "a cold hardened `docker run -i` of the same code, image and flags";

/** `runner` is the runner file the container starts (the app's, unless a bench compares). */
export function dockerRunOnce(
  image: string,
  code: string,
  runner: string = RUNNER_PATH,
): Promise<number> {
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
    runner,
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
      code,
      stdin: "",
      tools: [],
      limits: runnerLimits(),
    };
    child.stdin.write(`${nonce}\n${JSON.stringify(start_)}\n`);
  });
}
