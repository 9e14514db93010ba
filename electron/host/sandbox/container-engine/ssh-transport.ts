// Docker's API over SSH, as the Docker CLI reaches `ssh://user@host`: each HTTP connection is a
// channel running `docker system dial-stdio` on the remote side (or, for Podman's form with a
// socket path, that socket forwarded). One SSH connection carries several channels, so a
// request costs a channel, not a handshake; a server's per-connection session cap (OpenSSH's
// MaxSessions, 10 by default) is kept under by opening another connection.
//
// The host key is checked against known_hosts before anything is sent (known-hosts.ts): an
// unknown or changed key ends the connection with a message saying so, never a fallback.
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { Client, type AuthenticationType, type ClientChannel, type ConnectConfig } from "ssh2";
import { checkHostKey, hostKeyMessage } from "./known-hosts.js";

/** Channels one SSH connection carries at most (OpenSSH's MaxSessions default is 10). */
export const SSH_CHANNELS_PER_CONNECTION = 8;
/** The SSH handshake (host key, authentication) must finish within this. */
export const SSH_READY_TIMEOUT_MS = 15_000;
/** TCP keepalive on the SSH connection: a dead link is noticed after this idle time. */
export const SSH_KEEPALIVE_MS = 5_000;
/** What runs on the remote side for each connection (the Docker CLI's own command). */
export const DIAL_STDIO = "docker system dial-stdio";

export interface SshTarget {
  host: string;
  port: number;
  user: string;
  /** A socket on the remote side to forward to (Podman); null: `docker system dial-stdio`. */
  socket: string | null;
}

export interface SshCredentials {
  /** known_hosts texts and where they came from (for the message when a key is refused). */
  knownHosts: readonly string[];
  knownHostsWhere: string;
  /** Private keys to offer, in order (unencrypted OpenSSH or PEM). */
  keys: readonly { name: string; text: string }[];
  /** An ssh-agent socket (SSH_AUTH_SOCK), tried first when set. */
  agent: string | null;
}

/** The SSH connection was refused before Docker was reached: the message says why. */
export class SshEngineError extends Error {
  override name = "SshEngineError";
  /** Refused for trust (a host key): never a reason to try anything looser. */
  readonly trust: boolean;
  constructor(message: string, trust = false) {
    super(message);
    this.trust = trust;
  }
}

interface Connection {
  client: Client;
  ready: Promise<void>;
  channels: number;
  closed: boolean;
}

/** Gives a channel the socket methods Node's HTTP client calls on its connections. */
function asSocket(channel: ClientChannel): Duplex {
  const socket = channel as unknown as Duplex & Record<string, unknown>;
  for (const name of ["setKeepAlive", "setNoDelay", "ref", "unref"]) {
    socket[name] ??= () => socket;
  }
  socket.setTimeout ??= (_ms: number, callback?: () => void) => {
    if (callback) socket.once("timeout", callback);
    return socket;
  };
  return socket;
}

/**
 * An http.Agent whose connections are SSH channels. Give it to dockerode as `agent` with
 * protocol http; the host and port in the URLs are never dialled.
 */
export class SshEngineAgent extends http.Agent {
  private readonly connections: Connection[] = [];
  private destroyed = false;

  constructor(
    private readonly target: SshTarget,
    private readonly credentials: SshCredentials,
  ) {
    super({ keepAlive: true, maxFreeSockets: 2 });
  }

  override createConnection(
    _options: unknown,
    callback?: (error: Error | null, socket: Duplex) => void,
  ): undefined {
    const done = callback ?? (() => undefined);
    this.openChannel().then(
      (channel) => done(null, asSocket(channel)),
      // Node's agent reads only the error when there is one.
      (error: unknown) =>
        done(
          error instanceof Error ? error : new Error(String(error)),
          undefined as unknown as Duplex,
        ),
    );
    return undefined;
  }

  private async openChannel(): Promise<ClientChannel> {
    if (this.destroyed) throw new SshEngineError("the SSH connection to the engine was closed");
    let connection = this.connections.find(
      (c) => !c.closed && c.channels < SSH_CHANNELS_PER_CONNECTION,
    );
    connection ??= this.connect();
    await connection.ready;
    connection.channels++;
    try {
      const channel = await this.channelOn(connection);
      channel.once("close", () => {
        connection.channels--;
      });
      return channel;
    } catch (error) {
      connection.channels--;
      throw error;
    }
  }

  private channelOn(connection: Connection): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      const opened = (error: Error | undefined, channel: ClientChannel): void => {
        if (error) {
          reject(
            new SshEngineError(
              `the SSH server would not open a channel to the engine: ${error.message}`,
            ),
          );
          return;
        }
        // dial-stdio's own complaints (no docker CLI there, no engine) come on stderr.
        let stderr = "";
        channel.stderr.on("data", (chunk: Buffer) => {
          if (stderr.length < 2_000) stderr += chunk.toString("utf8");
        });
        channel.once("exit", (code: number | null) => {
          if (code !== 0 && code !== null && stderr !== "") {
            (channel as unknown as Duplex).destroy(
              new SshEngineError(
                `${DIAL_STDIO} failed on ${this.target.host}: ${stderr.trim().slice(0, 500)}`,
              ),
            );
          }
        });
        resolve(channel);
      };
      if (this.target.socket === null) connection.client.exec(DIAL_STDIO, opened);
      else connection.client.openssh_forwardOutStreamLocal(this.target.socket, opened);
    });
  }

  private connect(): Connection {
    const client = new Client();
    const { host, port, user } = this.target;
    // Our own TCP socket, handed to ssh2: an idle SSH connection must not keep a process alive
    // that is done (a daemon stopping), so it is unref'd and TCP keepalives watch the link
    // instead of ssh2's own keepalive timer, which would hold the process.
    const socket = net.connect({ host, port });
    socket.setKeepAlive(true, SSH_KEEPALIVE_MS);
    socket.unref();
    let refusal: SshEngineError | null = null;
    const connection: Connection = {
      client,
      channels: 0,
      closed: false,
      ready: new Promise<void>((resolve, reject) => {
        client.once("ready", () => {
          // Protocol lines are small and go one by one: none may wait for a delayed ACK.
          client.setNoDelay(true);
          resolve();
        });
        client.once("error", (error: Error & { level?: string }) => {
          reject(refusal ?? new SshEngineError(sshErrorMessage(error, this.target)));
        });
        client.once("close", () =>
          reject(refusal ?? new SshEngineError(`the SSH connection to ${host} closed`)),
        );
      }),
    };
    // A refused connection is retried by the next request, not reused.
    const drop = (): void => {
      connection.closed = true;
      const index = this.connections.indexOf(connection);
      if (index !== -1) this.connections.splice(index, 1);
    };
    client.on("close", drop);
    client.on("error", drop);
    connection.ready.catch(() => undefined);
    this.connections.push(connection);
    const config: ConnectConfig = {
      sock: socket,
      host,
      port,
      username: user,
      readyTimeout: SSH_READY_TIMEOUT_MS,
      keepaliveInterval: 0,
      hostVerifier: (key: Buffer): boolean => {
        const verdict = checkHostKey(this.credentials.knownHosts, host, port, key);
        if (verdict.ok) return true;
        refusal = new SshEngineError(
          hostKeyMessage(verdict, host, port, this.credentials.knownHostsWhere),
          true,
        );
        return false;
      },
      authHandler: this.authMethods(user) as unknown as AuthenticationType[],
    };
    client.connect(config);
    return connection;
  }

  private authMethods(user: string): unknown[] {
    const methods: unknown[] = [];
    if (this.credentials.agent)
      methods.push({ type: "agent", username: user, agent: this.credentials.agent });
    for (const key of this.credentials.keys)
      methods.push({ type: "publickey", username: user, key: key.text });
    return methods;
  }

  override destroy(): void {
    this.destroyed = true;
    super.destroy();
    for (const connection of this.connections.splice(0)) connection.client.end();
  }
}

function sshErrorMessage(error: Error & { level?: string }, target: SshTarget): string {
  const where = `${target.user}@${target.host}:${target.port}`;
  if (error.level === "client-authentication") {
    return `the SSH server ${where} did not accept any of the keys offered (ssh-agent, ~/.ssh/id_ed25519, id_ecdsa, id_rsa)`;
  }
  if (error.level === "client-timeout")
    return `the SSH server ${where} did not finish its handshake in time`;
  return `cannot reach the SSH server ${where}: ${error.message}`;
}
