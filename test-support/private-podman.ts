// Podman's Docker-compatible service of the test's own (Debian's `podman`, rootful here: the
// tests run as root), on a socket, a store and a configuration under one temporary directory:
// nothing of the machine's own Podman (nor Docker's) is touched. Two services share the store:
// one whose default runtime is runc, one whose default is gVisor's runsc (Podman's compatible API
// runs every container under its default runtime: see podman-quirks.ts).
//
// Networking: builds use the host's network namespace (`netns = "host"`), so Podman makes no
// bridge and writes no firewall rule: the machine's Docker shares the kernel, and its docker0
// and iptables chains stay as they are. Sandbox containers ask for NetworkMode none anyway.
//
// destroy() removes every container, stops both services, unmounts what Podman mounted under
// the directory and deletes it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Dockerode from "dockerode";
import { copyImage } from "../electron/host/sandbox/container-engine/image-transfer.js";

/** What the broken runtime of startBroken() says on stderr (Podman passes it on). */
export const BROKEN_RUNTIME_MESSAGE = "this runtime refuses every container (a test's fault)";

/** How long a service may take to answer after it was started. */
const SERVICE_START_TIMEOUT_MS = 60_000;
/** How long it may take to stop after SIGTERM. */
const SERVICE_STOP_TIMEOUT_MS = 30_000;

export interface PodmanService {
  /** As --engine and DOCKER_HOST take it. */
  url: string;
  docker: Dockerode;
  /** The default (and so only) runtime of this service. */
  runtime: "runc" | "runsc";
}

export interface PrivatePodman {
  runc: PodmanService;
  /** Present when gVisor's runsc is installed on this machine. */
  runsc: PodmanService | null;
  /** Copies `image` from `from` (the shared Docker engine) into the store. */
  loadImage(from: Dockerode, image: string): Promise<void>;
  /**
   * A third service on the store whose default runtime fails every container start with
   * BROKEN_RUNTIME_MESSAGE: a real engine error on Podman.
   */
  startBroken(): Promise<PodmanService>;
  destroy(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

async function answers(docker: Dockerode, log: () => string): Promise<void> {
  const deadline = Date.now() + SERVICE_START_TIMEOUT_MS;
  for (;;) {
    try {
      await docker.ping();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`podman did not answer:\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

function mountsUnder(dir: string): string[] {
  try {
    return readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1] ?? "")
      .filter((target) => target.startsWith(dir + "/"))
      .sort((a, b) => b.length - a.length);
  } catch {
    return [];
  }
}

function runscPath(): string | null {
  const found = spawnSync("sh", ["-c", "command -v runsc"], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
}

/** Whether Debian's podman is installed (CI installs it: .ci/run). */
export function podmanInstalled(): boolean {
  return spawnSync("sh", ["-c", "command -v podman"]).status === 0;
}

export async function startPrivatePodman(): Promise<PrivatePodman> {
  // Short: a Unix socket path is capped near 104 bytes.
  const dir = mkdtempSync(path.join(os.tmpdir(), "cmp-"));
  const storage = path.join(dir, "storage.conf");
  writeFileSync(
    storage,
    `[storage]\ndriver = "overlay"\ngraphroot = "${dir}/root"\nrunroot = "${dir}/run"\n`,
  );
  const runsc = runscPath();
  const wrapper = path.join(dir, "runsc-ptrace");
  if (runsc) {
    // The flags Docker's registration of runsc gives it on this machine (docker-up.sh).
    writeFileSync(wrapper, `#!/bin/sh\nexec ${runsc} --network=none --platform=ptrace "$@"\n`);
    chmodSync(wrapper, 0o755);
  }
  const broken = path.join(dir, "broken-runtime");
  writeFileSync(broken, `#!/bin/sh\necho "${BROKEN_RUNTIME_MESSAGE}" >&2\nexit 1\n`);
  chmodSync(broken, 0o755);
  const conf = (runtime: string): string => {
    const file = path.join(dir, `${runtime}.conf`);
    writeFileSync(
      file,
      [
        "[containers]",
        'netns = "host"',
        "[engine]",
        'cgroup_manager = "cgroupfs"',
        'events_logger = "file"',
        // The broken service calls its failing runtime runc: the run passes the runtime check
        // and fails where an engine error comes, at the container's start.
        `runtime = "${runtime === "broken" ? "runc" : runtime}"`,
        "[engine.runtimes]",
        ...(runtime === "broken" ? [`runc = ["${broken}"]`] : []),
        ...(runsc ? [`runsc = ["${wrapper}"]`] : []),
        "[network]",
        `network_config_dir = "${dir}/net"`,
        "",
      ].join("\n"),
    );
    return file;
  };
  const children: ChildProcess[] = [];
  let log = "";
  const start = async (
    runtime: "runc" | "runsc" | "broken",
  ): Promise<{ service: PodmanService; child: ChildProcess }> => {
    const socket = path.join(dir, `${runtime}.sock`);
    const child = spawn(
      "podman",
      [
        `--root=${dir}/root`,
        `--runroot=${dir}/run`,
        `--tmpdir=${dir}/tmp`,
        "system",
        "service",
        "--time=0",
        `unix://${socket}`,
      ],
      {
        // conmon leaves files (an `oom` marker when a container runs out of memory) in its
        // working directory: the service's own folder, not the checkout the tests run from.
        cwd: dir,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CONTAINERS_CONF: conf(runtime), CONTAINERS_STORAGE_CONF: storage },
      },
    );
    const keep = (d: Buffer): void => {
      log = (log + d.toString("utf8")).slice(-8_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    children.push(child);
    const docker = new Dockerode({ socketPath: socket });
    await answers(docker, () => log);
    const named = runtime === "runsc" ? "runsc" : "runc";
    return { service: { url: `unix://${socket}`, docker, runtime: named }, child };
  };
  const stop = async (child: ChildProcess): Promise<void> => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), SERVICE_STOP_TIMEOUT_MS);
    await exited(child);
    clearTimeout(timer);
  };
  const runcStarted = await start("runc");
  const runscStarted = runsc ? await start("runsc") : null;
  return {
    runc: runcStarted.service,
    runsc: runscStarted?.service ?? null,
    loadImage: (from, image) => copyImage(from, runcStarted.service.docker, image),
    startBroken: async () => (await start("broken")).service,
    async destroy() {
      const docker = runcStarted.service.docker;
      const list = await docker.listContainers({ all: true }).catch(() => []);
      for (const info of list) {
        await docker
          .getContainer(info.Id)
          .remove({ force: true })
          .catch(() => undefined);
      }
      for (const child of children) await stop(child);
      for (const target of mountsUnder(dir)) spawnSync("umount", ["-l", target]);
      const rm = spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" });
      rm.on("error", () => rmSync(dir, { recursive: true, force: true }));
      rm.unref();
    },
  };
}
