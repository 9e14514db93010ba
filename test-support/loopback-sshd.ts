// An SSH server of the test's own on 127.0.0.1 (Debian's openssh-server), with a host key and a
// user key made by the test, and a home for the client side holding that key and a known_hosts
// that names the host key: what `ssh://root@127.0.0.1:PORT` needs, as a user would have it.
// The remote side's `docker system dial-stdio` reaches the engine at `dockerHost` (sshd's
// SetEnv). close() stops sshd and deletes its files.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { freePort } from "./free-port.js";
import { tempDir } from "./temp-dir.js";

/** How long sshd may take to listen after it was started. */
const SSHD_START_TIMEOUT_MS = 20_000;

export interface LoopbackSshd {
  /** ssh://root@127.0.0.1:PORT */
  url: string;
  port: number;
  /** A home whose .ssh holds the user key (id_ed25519) and known_hosts naming the host key. */
  home: string;
  /** The same key, but a known_hosts naming another host key (a changed or spoofed host). */
  wrongHostHome: string;
  /** A home with the key and an empty known_hosts (a host never seen). */
  unknownHostHome: string;
  close(): Promise<void>;
}

function keygen(file: string): string {
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", file], { stdio: "ignore" });
  return readFileSync(`${file}.pub`, "utf8").trim();
}

function clientHome(root: string, name: string, userKey: string, knownHosts: string): string {
  const home = path.join(root, name);
  mkdirSync(path.join(home, ".ssh"), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(home, ".ssh", "id_ed25519"), readFileSync(userKey), { mode: 0o600 });
  writeFileSync(path.join(home, ".ssh", "known_hosts"), knownHosts);
  return home;
}

async function listening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + SSHD_START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited:\n${log()}`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startLoopbackSshd(dockerHost: string | null = null): Promise<LoopbackSshd> {
  const dir = tempDir("cm-sshd-");
  const port = await freePort();
  const hostPub = keygen(path.join(dir, "host_key"));
  const otherHostPub = keygen(path.join(dir, "other_host_key"));
  const userPub = keygen(path.join(dir, "user_key"));
  writeFileSync(path.join(dir, "authorized_keys"), `${userPub}\n`, { mode: 0o600 });
  // sshd wants its privilege separation directory.
  mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const config = path.join(dir, "sshd_config");
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${path.join(dir, "host_key")}`,
      `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
      `PidFile ${path.join(dir, "sshd.pid")}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      "MaxSessions 10",
      ...(dockerHost ? [`SetEnv DOCKER_HOST=${dockerHost}`] : []),
      "",
    ].join("\n"),
  );
  const child = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d: Buffer) => {
    log = (log + d.toString("utf8")).slice(-4_000);
  });
  await listening(port, child, () => log);
  const hostKey = hostPub.split(" ").slice(0, 2).join(" ");
  const otherKey = otherHostPub.split(" ").slice(0, 2).join(" ");
  const userKey = path.join(dir, "user_key");
  return {
    url: `ssh://root@127.0.0.1:${port}`,
    port,
    home: clientHome(dir, "home", userKey, `[127.0.0.1]:${port} ${hostKey}\n`),
    wrongHostHome: clientHome(dir, "home-wrong", userKey, `[127.0.0.1]:${port} ${otherKey}\n`),
    unknownHostHome: clientHome(dir, "home-unknown", userKey, ""),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
