import { chmod, lstat, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { LOCAL_ACCESS_NAMES } from "./local-access-constants.js";
import { sha256Hex } from "../../util/sha256-hex.js";

/**
 * Unix socket paths are capped near 104 bytes (sun_path: 104 on macOS, 108 on Linux);
 * past this many bytes we use a short fallback directory instead.
 */
export const SOCKET_PATH_MAX_BYTES = 100;

/** Hex characters of sha256(dataDir) that name the fallback directory and the pipe. */
export const DATA_DIR_HASH_CHARS = 12;

export const SOCKET_DIR_MODE = 0o700;

/** The platform facts the socket location depends on, passed in so the choice is testable. */
export interface SocketPlatform {
  platform: NodeJS.Platform;
  /** Undefined on Windows. */
  uid: number | undefined;
  tmpdir: string;
  xdgRuntimeDir: string | undefined;
}

export type SocketLocation =
  | {
      kind: "unix";
      /** The directory holding the socket; only we may enter it. */
      dir: string;
      socketPath: string;
      /**
       * True for the fallback directories under a shared parent (XDG_RUNTIME_DIR, tmpdir):
       * there someone else may have made the directory first, so it is checked, never fixed.
       */
      shared: boolean;
    }
  | { kind: "pipe"; socketPath: string };

export class SocketDirError extends Error {
  override name = "SocketDirError";
}

export function currentSocketPlatform(env: NodeJS.ProcessEnv = process.env): SocketPlatform {
  return {
    platform: process.platform,
    uid: process.getuid?.(),
    tmpdir: os.tmpdir(),
    xdgRuntimeDir: env.XDG_RUNTIME_DIR || undefined,
  };
}

/** A short, stable name for a data directory; the same on every process that computes it. */
export function dataDirHash(dataDir: string, platform: NodeJS.Platform): string {
  const pathApi = platform === "win32" ? path.win32 : path.posix;
  let key = pathApi.resolve(dataDir);
  // Windows paths are case-insensitive: `C:\Users` and `c:\users` must find the same pipe.
  if (platform === "win32") key = key.toLowerCase();
  return sha256Hex(key).slice(0, DATA_DIR_HASH_CHARS);
}

function fits(socketPath: string): boolean {
  return Buffer.byteLength(socketPath, "utf8") <= SOCKET_PATH_MAX_BYTES;
}

/**
 * Where the host listens for a data directory. Pure: the host and the shim both call it with
 * the data directory alone, so they always agree.
 */
export function socketLocation(dataDir: string, facts: SocketPlatform): SocketLocation {
  const hash = dataDirHash(dataDir, facts.platform);
  const { prefix, socketDir, socketFile } = LOCAL_ACCESS_NAMES;
  if (facts.platform === "win32") {
    return { kind: "pipe", socketPath: `\\\\.\\pipe\\${prefix}-${hash}` };
  }
  const p = path.posix;
  const primaryDir = p.join(p.resolve(dataDir), socketDir);
  const primary = p.join(primaryDir, socketFile);
  if (fits(primary)) return { kind: "unix", dir: primaryDir, socketPath: primary, shared: false };

  if (facts.xdgRuntimeDir && p.isAbsolute(facts.xdgRuntimeDir)) {
    // XDG_RUNTIME_DIR is already private to the user, so the hash alone is a unique name.
    const dir = p.join(facts.xdgRuntimeDir, `${prefix}-${hash}`);
    const socketPath = p.join(dir, socketFile);
    if (fits(socketPath)) return { kind: "unix", dir, socketPath, shared: true };
  }
  // A shared temp directory: the uid in the name keeps users from colliding by accident;
  // prepareSocketDir's ownership check keeps them from colliding on purpose.
  const name = `${prefix}-${facts.uid ?? "user"}-${hash}`;
  for (const parent of [facts.tmpdir, "/tmp"]) {
    const dir = p.join(parent, name);
    const socketPath = p.join(dir, socketFile);
    if (fits(socketPath)) return { kind: "unix", dir, socketPath, shared: true };
  }
  // Unreachable in practice (/tmp/codemode-<uid>-<hash>/codemode.sock is ~50 bytes).
  const dir = p.join("/tmp", name);
  return { kind: "unix", dir, socketPath: p.join(dir, socketFile), shared: true };
}

/** The socket location for this process's platform. */
export function socketLocationFor(
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
): SocketLocation {
  return socketLocation(dataDir, currentSocketPlatform(env));
}

/**
 * Makes the socket directory exist with mode 0700 and owned by us. Our own `run/` under the
 * data directory is repaired if its mode drifted; a shared fallback directory that is not
 * ours or that others can enter is refused, because someone else may have made it.
 */
export async function prepareSocketDir(
  location: SocketLocation,
  uid: number | undefined = process.getuid?.(),
): Promise<void> {
  if (location.kind === "pipe") return;
  const mode = SOCKET_DIR_MODE;
  await mkdir(location.dir, { recursive: !location.shared, mode }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  });
  const stat = await lstat(location.dir);
  if (!stat.isDirectory()) {
    throw new SocketDirError(
      `${location.dir} should be a directory for Code Mode's socket but is not; remove it and start again`,
    );
  }
  if (uid !== undefined && stat.uid !== uid) {
    throw new SocketDirError(
      `${location.dir} belongs to another user (uid ${stat.uid}); Code Mode will not put its socket there. Remove it and start again`,
    );
  }
  if ((stat.mode & 0o777) === mode) return;
  if (location.shared && (stat.mode & 0o077) !== 0) {
    throw new SocketDirError(
      `${location.dir} can be entered by other users (mode ${octal(stat.mode)}); Code Mode will not put its socket there. Remove it and start again`,
    );
  }
  await chmod(location.dir, mode);
}

export function octal(mode: number): string {
  return "0" + (mode & 0o777).toString(8).padStart(3, "0");
}

/**
 * The client's side of the same rule: before the shim hands its token to whatever listens
 * there, the socket's directory must be ours and closed to others, so a socket planted in
 * a shared place by another user never receives it. Null when it is fine (or absent: then
 * there is nothing to connect to anyway); else why not. Named pipes have no directory.
 */
export async function socketDirProblem(
  location: SocketLocation,
  uid: number | undefined = process.getuid?.(),
): Promise<string | null> {
  if (location.kind === "pipe") return null;
  let stat;
  try {
    stat = await lstat(location.dir);
  } catch {
    return null;
  }
  if (!stat.isDirectory()) return `${location.dir} is not a directory`;
  if (uid !== undefined && stat.uid !== uid) {
    return `${location.dir} belongs to another user (uid ${stat.uid})`;
  }
  if ((stat.mode & 0o077) !== 0) {
    return `${location.dir} can be entered by other users (mode ${octal(stat.mode)})`;
  }
  return null;
}

/**
 * socketDirProblem, and the socket file itself: if it is there, it must be a socket of ours
 * that no one else can write. The shim asks before every connection attempt, not once: while
 * it waits for the app to start, someone else may make the directory or the socket.
 */
export async function socketProblem(
  location: SocketLocation,
  uid: number | undefined = process.getuid?.(),
): Promise<string | null> {
  const dirProblem = await socketDirProblem(location, uid);
  if (dirProblem !== null || location.kind === "pipe") return dirProblem;
  let stat;
  try {
    stat = await lstat(location.socketPath);
  } catch {
    return null;
  }
  if (!stat.isSocket()) return `${location.socketPath} is not a socket`;
  if (uid !== undefined && stat.uid !== uid) {
    return `${location.socketPath} belongs to another user (uid ${stat.uid})`;
  }
  if ((stat.mode & 0o022) !== 0) {
    return `${location.socketPath} can be written by other users (mode ${octal(stat.mode)})`;
  }
  return null;
}
