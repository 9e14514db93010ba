import type { Readable } from "node:stream";
import type Dockerode from "dockerode";

/**
 * While the engine answers, it is pinged this often: a socket removed under a live
 * connection, or an engine that went away without ending its event stream, is noticed
 * within this plus one failed ping (well inside 2 s).
 */
export const DOCKER_HEARTBEAT_MS = 1_000;

/** After Docker was lost, the first try to reach it again waits this long... */
export const DOCKER_RECONNECT_FIRST_MS = 250;

/** ...each next try twice as long as the one before, up to this. */
export const DOCKER_RECONNECT_MAX_MS = 5_000;

/**
 * A run's failed connection is taken as an outage only if a ping fails too; a ping that has
 * not answered within this is left to the heartbeat rather than taken as a loss.
 */
export const DOCKER_CONFIRM_LOSS_PING_MS = 1_000;

/** Errors that mean the engine is not there (as opposed to an engine that answered "no"). */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOENT",
  "ECONNRESET",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** Whether `error` says the engine could not be reached at all. */
export function isDockerUnreachable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = "code" in error ? error.code : undefined;
  if (typeof code === "string" && UNREACHABLE_CODES.has(code)) return true;
  const message = "message" in error ? error.message : undefined;
  return typeof message === "string" && message.includes("socket hang up");
}

function codeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error) return String(error.code);
  return error instanceof Error ? error.name : "error";
}

export interface DockerWatchOptions {
  heartbeatMs: number;
  /** Called once, with how the loss was noticed; the watch has stopped by then. */
  onLost: (reason: string) => void;
}

/**
 * Notices an engine going away while the host is idle, not only when a run fails: Docker's
 * event stream ends the moment the engine stops, and a ping on a timer catches the rest (a
 * socket removed under a live connection). A ping that is merely slow is not a loss: a busy
 * engine must not read as a stopped one.
 */
export class DockerWatch {
  private stopped = false;
  private stream: Readable | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pinging = false;

  constructor(
    private readonly docker: Dockerode,
    private readonly options: DockerWatchOptions,
  ) {}

  start(): void {
    this.docker.getEvents({ filters: { type: ["container"] } }).then(
      (stream) => {
        const readable = stream as unknown as Readable;
        if (this.stopped) {
          readable.destroy();
          return;
        }
        this.stream = readable;
        // The events themselves are not needed: only that the stream stays open.
        readable.resume();
        readable.once("end", () => this.lose("Docker's event stream ended"));
        readable.once("close", () => this.lose("Docker's event stream closed"));
        readable.once("error", (error) =>
          this.lose(`Docker's event stream failed (${codeOf(error)})`),
        );
      },
      (error: unknown) => this.lose(`Docker's event stream could not be opened (${codeOf(error)})`),
    );
    this.timer = setInterval(() => this.ping(), this.options.heartbeatMs);
    this.timer.unref();
  }

  private ping(): void {
    if (this.pinging || this.stopped) return;
    this.pinging = true;
    this.docker
      .ping()
      .catch((error: unknown) => {
        if (isDockerUnreachable(error)) this.lose(`a ping to Docker failed (${codeOf(error)})`);
      })
      .finally(() => {
        this.pinging = false;
      });
  }

  /** A call elsewhere found the engine gone: the same as the watch noticing it. */
  lose(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.options.onLost(reason);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stream?.destroy();
    this.stream = null;
  }
}

/**
 * Whether the engine is gone, asked after one call failed to connect: only a ping failing the
 * same way says so. A ping that is merely slow (past `DOCKER_CONFIRM_LOSS_PING_MS`) is not
 * taken as a loss: the watch's heartbeat still notices an engine that really went.
 */
export async function dockerIsGone(
  docker: { ping(): Promise<unknown> },
  timeoutMs: number = DOCKER_CONFIRM_LOSS_PING_MS,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const ping = docker.ping().then(
    () => false,
    (error: unknown) => isDockerUnreachable(error),
  );
  try {
    return await Promise.race([ping, slow]);
  } finally {
    clearTimeout(timer);
  }
}

/** The wait before reconnect try `attempt` (0-based): doubling from `firstMs`, at most `maxMs`. */
export function reconnectDelayMs(attempt: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(attempt, 30));
}
