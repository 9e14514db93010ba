import type { ContainerCreateOptions } from "dockerode";
import { SANDBOX_LIMITS } from "../../../../shared/limits.js";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import type { ContainerOwner, LabelledOwner } from "./container-owner.js";
import { openSlotScript } from "./slot-open-script.js";

export type { ContainerOwner } from "./container-owner.js";

/** runner.py as the image compiles it (see the Dockerfile for why the compiled one). */
export const RUNNER_PATH = "/opt/codemode/runner.pyc";
/**
 * The runner's flag for a warm-pool container: it imports the common heavy libraries while it
 * waits for its start line (runner.py's PRELOAD_MODULES). A cold container never gets it, so
 * it does exactly the work it did before.
 */
export const PRELOAD_FLAG = "--preload";
/**
 * Where a container's workspace slot is mounted (a folder of the host, empty and closed to the
 * container until a run with a workspace takes it), and the image's `/workspace`: a symlink to
 * WORKSPACE_SLOT_DIR inside the slot, so it dangles (no `/workspace`) until the host puts a
 * workspace there. The Dockerfile and runner.py name the same paths.
 */
export const WORKSPACE_SLOT_PATH = "/codemode-slot";
export const WORKSPACE_SLOT_DIR = "ws";
export const WORKSPACE_PATH = "/workspace";
/** Label every sandbox container carries, so leftovers of a crashed host can be found. */
export const SANDBOX_LABEL = "codemode.sandbox";
/** The labels that say who owns a container (see container-owner.ts for what each means). */
export const OWNER_LABELS = {
  install: "codemode.install",
  host: "codemode.owner-host",
  boot: "codemode.owner-boot",
  pidns: "codemode.owner-pidns",
  pid: "codemode.owner-pid",
} as const satisfies Record<keyof ContainerOwner, string>;

export function ownerLabels(owner: ContainerOwner): Record<string, string> {
  return {
    [OWNER_LABELS.install]: owner.install,
    [OWNER_LABELS.host]: owner.host,
    [OWNER_LABELS.boot]: owner.boot,
    [OWNER_LABELS.pidns]: owner.pidns,
    [OWNER_LABELS.pid]: String(owner.pid),
  };
}

/** The owner a container's labels name; a missing or odd label stays undefined. */
export function labelledOwner(labels: Record<string, string>): LabelledOwner {
  const pidText = labels[OWNER_LABELS.pid];
  const pid = pidText === undefined ? undefined : Number(pidText);
  return {
    install: labels[OWNER_LABELS.install],
    host: labels[OWNER_LABELS.host],
    boot: labels[OWNER_LABELS.boot],
    pidns: labels[OWNER_LABELS.pidns],
    pid: pid !== undefined && Number.isSafeInteger(pid) ? pid : undefined,
  };
}

/**
 * The one place the sandbox's isolation is spelled out. Warm and cold containers are
 * both made from this, so a warm container is exactly as locked down as a cold one. The
 * runtime (runc or gVisor's runsc) is named every time, so the engine's default never decides.
 */
export function sandboxContainerSpec(
  image: string,
  nonce: string,
  owner: ContainerOwner,
  runtime: SandboxRuntime = "runc",
  preload = false,
  /** A host folder mounted at WORKSPACE_SLOT_PATH (the warm pool's slot); none unless given. */
  slot?: string,
  /**
   * Instead of the runner, open what a run left in `slot` to the host (slot-open-script.ts):
   * the same user and the same limits as a run, so it can do nothing a run could not.
   */
  openSlot = false,
): ContainerCreateOptions {
  return {
    Image: image,
    Cmd: openSlot
      ? ["python3", "-I", "-c", openSlotScript(WORKSPACE_SLOT_PATH)]
      : ["python3", "-I", RUNNER_PATH, nonce, ...(preload ? [PRELOAD_FLAG] : [])],
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
      ...ownerLabels(owner),
    },
    HostConfig: {
      Runtime: runtime,
      NetworkMode: "none",
      IpcMode: "none",
      ReadonlyRootfs: true,
      Tmpfs: { "/tmp": `${SANDBOX_LIMITS.tmpfsOptions},size=${SANDBOX_LIMITS.tmpfsBytes}` },
      Binds: [],
      // The slot is the one mount a sandbox may have: read-write for the workspace a run opens.
      // Docker's API cannot mark a bind mount noexec; the runner denies execution beneath it
      // with Landlock (runner.py), and Podman is told noexec too (podman-quirks.ts).
      Mounts:
        slot === undefined
          ? []
          : [{ Type: "bind", Source: slot, Target: WORKSPACE_SLOT_PATH, ReadOnly: false }],
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
