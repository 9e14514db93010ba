import { lstat, mkdir, open, readFile, rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { LOCAL_ACCESS_LIMITS, LOCAL_ACCESS_MODES } from "../../../../shared/limits.js";
import { LOCAL_ACCESS_NAMES } from "./local-access-constants.js";
import { removeIfUnchanged } from "../../util/remove-if-unchanged.js";
import { socketLocationFor, type SocketLocation } from "./socket-path.js";
import { pidAlive } from "../../util/process-place.js";

/** How long a start-up check waits for an existing socket to accept a connection. */
export const SOCKET_PROBE_TIMEOUT_MS = 1_000;

/** Another host owns this data directory. */
export class AlreadyRunningError extends Error {
  override name = "AlreadyRunningError";
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
    readonly lockPath: string,
  ) {
    super(
      pid === undefined
        ? `Code Mode is already running for ${dataDir} (its socket answers).`
        : `Code Mode is already running for ${dataDir} (pid ${pid}). ` +
            `If it is not, delete ${lockPath} and start again.`,
    );
  }
}

export interface InstanceLock {
  readonly path: string;
  readonly pid: number;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export interface LockOptions {
  /** The pid written into the lock; tests vary it. */
  pid?: number;
  isAlive?: (pid: number) => boolean;
  location?: SocketLocation;
}

// A pid can come back after a restart (containers start at pid 1 every time), so a lock
// holding our own pid is only live if this process really took it.
const heldHere = new Set<string>();

export function lockPath(dataDir: string): string {
  return path.join(dataDir, LOCAL_ACCESS_NAMES.lockFile);
}

/**
 * Takes `<dataDir>/host.lock` for this process, or throws AlreadyRunningError. A lock whose
 * pid is dead is taken over, unless the socket still answers: then a host is live whatever
 * the lock says (say it was deleted by hand, or its pid was reused).
 */
export async function acquireInstanceLock(
  dataDir: string,
  options: LockOptions = {},
): Promise<InstanceLock> {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? pidAlive;
  const location = options.location ?? socketLocationFor(dataDir);
  const file = lockPath(dataDir);
  await mkdir(dataDir, { recursive: true, mode: LOCAL_ACCESS_MODES.dataDir });

  for (let attempt = 0; attempt < 5; attempt++) {
    if (await createExclusive(file, `${pid}\n`)) {
      heldHere.add(file);
      const lock = makeLock(file, pid);
      if (await probeSocket(location.socketPath)) {
        await lock.release();
        throw new AlreadyRunningError(dataDir, undefined, file);
      }
      return lock;
    }
    const content = await readSettled(file);
    if (content === undefined) continue;
    const holder = parsePid(content);
    const live =
      holder !== undefined && isAlive(holder) && (holder !== process.pid || heldHere.has(file));
    if (live) throw new AlreadyRunningError(dataDir, holder, file);
    if (await probeSocket(location.socketPath)) {
      throw new AlreadyRunningError(dataDir, holder, file);
    }
    await removeIfUnchanged(file, content);
  }
  throw new Error(`could not take ${file}: other processes keep changing it`);
}

function makeLock(file: string, pid: number): InstanceLock {
  let released = false;
  return {
    path: file,
    pid,
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      const content = await readFile(file, "utf8").catch(() => undefined);
      if (content !== undefined && parsePid(content) === pid)
        await removeIfUnchanged(file, content);
    },
  };
}

async function createExclusive(file: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, "wx", LOCAL_ACCESS_MODES.lockFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

async function readSettled(file: string): Promise<string | undefined> {
  const deadline = Date.now() + LOCAL_ACCESS_LIMITS.emptyFileSettleMs;
  for (;;) {
    const content = await readFile(file, "utf8").catch(() => undefined);
    if (content !== "" || Date.now() >= deadline) return content;
    await new Promise((resolve) => setTimeout(resolve, LOCAL_ACCESS_LIMITS.emptyFileRetryMs));
  }
}

function parsePid(content: string): number | undefined {
  const text = content.trim();
  if (!/^[1-9][0-9]{0,9}$/.test(text)) return undefined;
  return Number(text);
}

/** True when something accepts connections on the socket path. */
export function probeSocket(
  socketPath: string,
  timeoutMs: number = SOCKET_PROBE_TIMEOUT_MS,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection(socketPath);
    const done = (answer: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * Removes a socket file nothing listens on (left by a host that crashed), so listen() can
 * bind. Throws AlreadyRunningError if something does listen.
 */
export async function removeStaleSocket(dataDir: string, location: SocketLocation): Promise<void> {
  if (location.kind === "pipe") return;
  try {
    await lstat(location.socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (await probeSocket(location.socketPath)) {
    throw new AlreadyRunningError(dataDir, undefined, lockPath(dataDir));
  }
  await rm(location.socketPath, { force: true });
}
