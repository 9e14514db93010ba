import type { ContainerCreateOptions } from "dockerode";
import { SANDBOX_LIMITS } from "../../../shared/limits.js";

export const RUNNER_PATH = "/opt/codemode/runner.py";
/** Label every sandbox container carries, so leftovers of a crashed host can be found. */
export const SANDBOX_LABEL = "codemode.sandbox";
export const OWNER_PID_LABEL = "codemode.owner-pid";
export const HOME_LABEL = "codemode.home";

export interface ContainerOwner {
  /** A short hash of the data directory: two installs never reap each other's containers. */
  home: string;
  pid: number;
}

/**
 * The one place the sandbox's isolation is spelled out. Warm and cold containers are
 * both made from this, so a warm container is exactly as locked down as a cold one.
 */
export function sandboxContainerSpec(
  image: string,
  nonce: string,
  owner: ContainerOwner,
): ContainerCreateOptions {
  return {
    Image: image,
    Cmd: ["python3", "-I", RUNNER_PATH, nonce],
    // Nothing of the host's environment: only what the image itself sets.
    Env: [],
    User: SANDBOX_LIMITS.user,
    WorkingDir: "/tmp",
    Tty: false,
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    NetworkDisabled: true,
    Labels: {
      [SANDBOX_LABEL]: "1",
      [HOME_LABEL]: owner.home,
      [OWNER_PID_LABEL]: String(owner.pid),
    },
    HostConfig: {
      NetworkMode: "none",
      IpcMode: "none",
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": `${SANDBOX_LIMITS.tmpfsOptions},size=${SANDBOX_LIMITS.tmpfsBytes}` },
      Binds: [],
      Mounts: [],
      Privileged: false,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      PidsLimit: SANDBOX_LIMITS.pids,
      Memory: SANDBOX_LIMITS.memoryBytes,
      MemorySwap: SANDBOX_LIMITS.memorySwapBytes,
      NanoCpus: SANDBOX_LIMITS.nanoCpus,
      Ulimits: [{ Name: "nofile", Soft: SANDBOX_LIMITS.nofile, Hard: SANDBOX_LIMITS.nofile }],
      // Output reaches the host only through the attach stream, never a log file on disk.
      LogConfig: { Type: "none", Config: {} },
      AutoRemove: false,
      RestartPolicy: { Name: "no" },
    },
  };
}
