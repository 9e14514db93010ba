// The log of an app the shim starts: its stdout and stderr go to a file in the data
// directory, so a user whose client says "Code Mode is not running" can read why. Rotated by
// size (APP_LOG_LIMITS): when the shim starts the app, and by the app itself while it runs.
// Node built-ins only: the shim must start fast.

import {
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
} from "node:fs";
import path from "node:path";
import { MiB } from "../../util/units.js";

export const APP_LOG_FILE = "app.log";

/** The log of an app the shim started (its stdout and stderr), in the data directory. */
export const APP_LOG_LIMITS = {
  /** Past this size the log is rotated: when the shim starts the app, and while it runs. */
  maxBytes: 1 * MiB,
  /** Files kept: app.log and app.log.1 up to app.log.(files - 1), the oldest dropped. */
  files: 3,
  /** How often a running app started by the shim checks the size of its log. */
  checkIntervalMs: 60_000,
  /** The last line of the log quoted in the shim's "not running" message is cut to this. */
  lastLineMaxChars: 300,
} as const;

export interface AppLogLimits {
  maxBytes: number;
  files: number;
}

export function appLogPath(dataDir: string): string {
  return path.join(dataDir, APP_LOG_FILE);
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

/**
 * Rotates `file` once it reaches its cap: `file.1` becomes `file.2` and so on, the oldest is
 * dropped, and `file` becomes `file.1`. With `copy`, `file` is copied and emptied instead of
 * renamed: a running app keeps writing to the file it has open (appending, so at the new end).
 * Lines written between the copy and the emptying are lost; that is the price of not
 * reopening. Returns whether it rotated.
 */
export function rotateAppLog(
  file: string,
  limits: AppLogLimits = APP_LOG_LIMITS,
  copy = false,
): boolean {
  const size = sizeOf(file);
  if (size === null || size < limits.maxBytes) return false;
  if (limits.files <= 1) {
    truncateSync(file, 0);
    return true;
  }
  rmSync(`${file}.${limits.files - 1}`, { force: true });
  for (let n = limits.files - 2; n >= 1; n--) {
    if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
  }
  if (copy) {
    copyFileSync(file, `${file}.1`);
    truncateSync(file, 0);
  } else {
    renameSync(file, `${file}.1`);
  }
  return true;
}

/**
 * Opens the app log of `dataDir` for appending (rotated first when full), for a child's
 * stdout and stderr; null when it cannot (the app then starts without a log). Never follows
 * a symlink: the data directory is 0700, but a link there must not send the output elsewhere.
 */
export function openAppLog(dataDir: string, limits: AppLogLimits = APP_LOG_LIMITS): number | null {
  const file = appLogPath(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    rotateAppLog(file, limits);
    return openSync(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0),
      0o600,
    );
  } catch {
    return null;
  }
}

/** The last non-empty line of the app log, cut to `maxChars`; null if there is none. */
export function lastLogLine(
  dataDir: string,
  maxChars: number = APP_LOG_LIMITS.lastLineMaxChars,
): string | null {
  let fd: number;
  try {
    fd = openSync(appLogPath(dataDir), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    // Only the end is read, whatever the size of the log.
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxChars * 4 + 2);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString("utf8").split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = (lines[i] ?? "").trim();
      if (line !== "") return line.length > maxChars ? `…${line.slice(-maxChars)}` : line;
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * In an app the shim started (its stdout is the app log of `dataDir`), checks the log's size
 * every `intervalMs` and rotates it by copying; elsewhere it does nothing. Returns the stopper.
 */
export function capAppLogWhileRunning(
  dataDir: string,
  intervalMs: number = APP_LOG_LIMITS.checkIntervalMs,
  limits: AppLogLimits = APP_LOG_LIMITS,
  outputFd = 1,
): () => void {
  const file = appLogPath(dataDir);
  try {
    const out = fstatSync(outputFd);
    const log = statSync(file);
    if (out.ino !== log.ino || out.dev !== log.dev) return () => undefined;
  } catch {
    return () => undefined;
  }
  const timer = setInterval(() => {
    try {
      rotateAppLog(file, limits, true);
    } catch {
      // A log that cannot be rotated now is tried again at the next check.
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
