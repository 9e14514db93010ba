// A dockerode client for an engine address: a local socket or pipe, TCP (TLS verified against
// the engine's CA, with the client's certificate), or SSH (ssh-transport.ts). Every option is
// given explicitly, because docker-modem otherwise fills what is missing from the process's
// DOCKER_HOST, DOCKER_CERT_PATH and SSH_AUTH_SOCK, mixing two engines into one client.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Dockerode from "dockerode";
import type { EngineAddress, TlsFiles } from "./engine-address.js";
import { SshEngineAgent, type SshCredentials } from "./ssh-transport.js";

/** The files and variables a connection reads: the user's own, or a test's. */
export interface ConnectEnv {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

export function processConnectEnv(): ConnectEnv {
  return { home: os.homedir(), env: process.env };
}

/** The engine could not even be connected to (a file missing, a bad address). */
export class EngineConnectError extends Error {
  override name = "EngineConnectError";
}

export interface EngineConnection {
  docker: Dockerode;
  /** Ends what the client holds open (SSH connections); sockets need nothing. */
  close(): void;
}

/** The SSH engines connected to, by URL and home (see connectEngine). */
const sshConnections = new Map<string, EngineConnection>();

/** Every option docker-modem would otherwise take from the environment, unset. */
const NOTHING_FROM_ENV = {
  socketPath: undefined,
  host: undefined,
  port: undefined,
  protocol: undefined,
  ca: undefined,
  cert: undefined,
  key: undefined,
  timeout: undefined,
  sshOptions: undefined,
  agent: undefined,
};

function readTls(files: TlsFiles): { ca: Buffer; cert: Buffer; key: Buffer } {
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new EngineConnectError(
        `the engine needs TLS, but its ${what} ${file} cannot be read (${code}); DOCKER_CERT_PATH (or the context) must name the folder holding ca.pem, cert.pem and key.pem`,
      );
    }
  };
  return {
    ca: read(files.ca, "CA"),
    cert: read(files.cert, "client certificate"),
    key: read(files.key, "client key"),
  };
}

/** Default key files `ssh` offers, in its order. */
export const SSH_KEY_FILES = ["id_ed25519", "id_ecdsa", "id_rsa"] as const;

/** known_hosts, keys and agent as `ssh` would find them for this user. */
export function sshCredentials(env: ConnectEnv): SshCredentials {
  const dir = path.join(env.home, ".ssh");
  const readOr = (file: string): string | null => {
    try {
      return readFileSync(file, "utf8");
    } catch {
      return null;
    }
  };
  const knownFiles = [path.join(dir, "known_hosts"), path.join(dir, "known_hosts2")];
  const keys = SSH_KEY_FILES.flatMap((name) => {
    const text = readOr(path.join(dir, name));
    // An encrypted key cannot be used without its passphrase: the agent holds those.
    return text === null || text.includes("ENCRYPTED") ? [] : [{ name, text }];
  });
  return {
    knownHosts: knownFiles.map(readOr).filter((text): text is string => text !== null),
    knownHostsWhere: knownFiles[0] ?? "known_hosts",
    keys,
    agent: env.env.SSH_AUTH_SOCK || null,
  };
}

/** A client for `address`. Nothing is sent yet: the first call connects (and verifies). */
export function connectEngine(
  address: EngineAddress,
  env: ConnectEnv = processConnectEnv(),
): EngineConnection {
  if (address.kind === "unix" || address.kind === "npipe") {
    return {
      docker: new Dockerode({ ...NOTHING_FROM_ENV, socketPath: address.path }),
      close: () => undefined,
    };
  }
  if (address.kind === "tcp") {
    if (address.tls === null) {
      return {
        docker: new Dockerode({
          ...NOTHING_FROM_ENV,
          host: address.host,
          port: address.port,
          protocol: "http",
        }),
        close: () => undefined,
      };
    }
    // Node's TLS checks the chain against `ca` and the name against the engine's certificate;
    // neither check can be turned off from here.
    const tls = readTls(address.tls);
    return {
      docker: new Dockerode({
        ...NOTHING_FROM_ENV,
        host: address.host,
        port: address.port,
        protocol: "https",
        ...tls,
      }),
      close: () => undefined,
    };
  }
  // One SSH connection per engine and user home: looking for the engine again (a poll, the UI)
  // reuses it instead of opening another each time.
  const key = `${address.url}\0${env.home}`;
  const open = sshConnections.get(key);
  if (open) return open;
  const user = address.user ?? (env.env.USER || env.env.USERNAME || os.userInfo().username);
  const agent = new SshEngineAgent(
    { host: address.host, port: address.port, user, socket: address.socket },
    sshCredentials(env),
  );
  // The URL's host is never dialled: every connection is an SSH channel from the agent.
  // dockerode hands `agent` to docker-modem, which gives it to every request; its types do not
  // name it.
  const options = { ...NOTHING_FROM_ENV, host: "engine.ssh", port: 80, protocol: "http", agent };
  const docker = new Dockerode(options as Dockerode.DockerOptions);
  const connection: EngineConnection = {
    docker,
    close: () => {
      sshConnections.delete(key);
      agent.destroy();
    },
  };
  sshConnections.set(key, connection);
  return connection;
}
