// A Docker engine of the test's own, to stop and start while a daemon uses it: the shared
// engine of the machine must never be restarted by a test. It has its own data root, exec
// root, socket and pid file under one temporary directory (short: a Unix socket path is
// capped near 104 bytes), a bridge of its own and no iptables rules, and the sandbox image
// copied in from the shared engine. destroy() removes its containers, stops it and deletes
// its files and its bridge.
//
// Not `--bridge=none`: a dockerd started with it deletes the machine's `docker0` interface,
// which the shared engine still uses, so every later image build with a RUN step (and any
// container on the default network) failed on the shared engine with "could not find bridge
// docker0" until it was restarted.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import Dockerode from "dockerode";

/** How long the private engine may take to answer after it was started. */
const ENGINE_START_TIMEOUT_MS = 60_000;
/** How long it may take to stop after SIGTERM (it stops its containers first). */
const ENGINE_STOP_TIMEOUT_MS = 30_000;

export interface PrivateDocker {
  /** As DOCKER_HOST takes it: `unix:///tmp/cmd-XXXX/d.sock`. */
  dockerHost: string;
  docker: Dockerode;
  /** Whether its dockerd runs now. */
  running(): boolean;
  /** SIGTERM to its dockerd; resolves once the process is gone. */
  stop(): Promise<void>;
  /** Starts its dockerd again on the same directories; resolves once it answers. */
  start(): Promise<void>;
  /** Copies `image` from `from` (the shared engine) in. */
  loadImage(from: Dockerode, image: string): Promise<void>;
  /** Removes every container, stops the engine, unmounts and deletes its directory. */
  destroy(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

async function answers(docker: Dockerode, timeoutMs: number, log: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await docker.ping();
      return;
    } catch {
      if (Date.now() > deadline) {
        throw new Error(`the private dockerd did not answer within ${timeoutMs} ms:\n${log()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Mount points left under `dir` (an engine killed hard can leave overlay and netns mounts). */
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

/** Runs `ip` (iproute2) and throws with its stderr when it fails. */
function ip(...args: string[]): void {
  const result = spawnSync("ip", args, { encoding: "utf8" });
  if (result.error)
    throw new Error(`ip ${args.join(" ")}: ${result.error.message} (is iproute2 installed?)`);
  if (result.status !== 0) throw new Error(`ip ${args.join(" ")} failed: ${result.stderr.trim()}`);
}

/** A bridge interface for one private engine (names are capped at 15 characters). */
function createBridge(): string {
  const name =
    `cmtb${process.pid.toString(36)}${Math.floor(Math.random() * 36 ** 3).toString(36)}`.slice(
      0,
      15,
    );
  ip("link", "add", "name", name, "type", "bridge");
  return name;
}

/** A TCP listener with TLS besides the unix socket (a remote engine on loopback). */
export interface PrivateDockerTls {
  port: number;
  ca: string;
  serverCert: string;
  serverKey: string;
}

export async function startPrivateDocker(
  tls: PrivateDockerTls | null = null,
): Promise<PrivateDocker> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cmd-"));
  const bridge = createBridge();
  const socket = path.join(dir, "d.sock");
  const docker = new Dockerode({ socketPath: socket });
  let child: ChildProcess | null = null;
  let log = "";
  const args = [
    `--data-root=${path.join(dir, "data")}`,
    `--exec-root=${path.join(dir, "exec")}`,
    `--pidfile=${path.join(dir, "d.pid")}`,
    `--host=unix://${socket}`,
    // The engine checks each client's certificate against the CA (--tlsverify).
    ...(tls
      ? [
          `--host=tcp://127.0.0.1:${tls.port}`,
          "--tlsverify",
          `--tlscacert=${tls.ca}`,
          `--tlscert=${tls.serverCert}`,
          `--tlskey=${tls.serverKey}`,
        ]
      : []),
    `--bridge=${bridge}`,
    "--iptables=false",
    "--ip6tables=false",
    // Its own containerd namespaces, in case it finds the machine's containerd.
    `--containerd-namespace=cmtest-${path.basename(dir)}`,
    `--containerd-plugins-namespace=cmtest-${path.basename(dir)}-plugins`,
  ];
  const start = async (): Promise<void> => {
    if (child) return;
    const started = spawn("dockerd", args, { stdio: ["ignore", "pipe", "pipe"] });
    started.stdout?.on("data", (d: Buffer) => (log = (log + d.toString("utf8")).slice(-8_000)));
    started.stderr?.on("data", (d: Buffer) => (log = (log + d.toString("utf8")).slice(-8_000)));
    started.once("exit", () => {
      if (child === started) child = null;
    });
    child = started;
    await answers(docker, ENGINE_START_TIMEOUT_MS, () => log);
  };
  const stop = async (): Promise<void> => {
    const current = child;
    if (!current) return;
    current.kill("SIGTERM");
    const timer = setTimeout(() => current.kill("SIGKILL"), ENGINE_STOP_TIMEOUT_MS);
    await exited(current);
    clearTimeout(timer);
    child = null;
  };
  try {
    await start();
  } catch (error) {
    spawnSync("ip", ["link", "del", bridge]);
    throw error;
  }
  return {
    dockerHost: `unix://${socket}`,
    docker,
    running: () => child !== null,
    stop,
    start,
    async loadImage(from, image) {
      const tar = await from.getImage(image).get();
      const loading = await docker.loadImage(tar);
      // The load is done when its progress stream ends.
      await new Promise<void>((resolve, reject) => {
        loading.on("end", () => resolve());
        loading.on("error", reject);
        loading.resume();
      });
    },
    async destroy() {
      if (child) {
        const list = await docker.listContainers({ all: true }).catch(() => []);
        for (const info of list) {
          await docker
            .getContainer(info.Id)
            .remove({ force: true })
            .catch(() => undefined);
        }
      }
      await stop();
      for (const target of mountsUnder(dir)) spawnSync("umount", ["-l", target]);
      spawnSync("ip", ["link", "del", bridge]);
      // The copied image is hundreds of MB in many small files: deleting them can take a
      // minute on a busy disk, so a detached `rm` does it after the test has moved on.
      const rm = spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" });
      rm.on("error", () => rmSync(dir, { recursive: true, force: true }));
      rm.unref();
    },
  };
}
