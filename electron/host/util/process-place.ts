import { readFileSync, readlinkSync } from "node:fs";
import os from "node:os";

/**
 * Where a process runs and its pid. A pid alone means nothing across pid namespaces (dev
 * containers, CI runners sharing one engine), so the host, the boot and the pid namespace
 * say where the pid can be looked up.
 */
export interface ProcessPlace {
  /** The host's name. */
  host: string;
  /** The kernel's boot id; "" where there is none to read (not Linux). */
  boot: string;
  /** The pid namespace, e.g. `pid:[4026531836]`; "" where there is none to read. */
  pidns: string;
  pid: number;
}

function readOr(read: () => string): string {
  try {
    return read().trim();
  } catch {
    return "";
  }
}

let cached: ProcessPlace | undefined;

/** Where this process runs (host, boot, pid namespace) and its pid: what makes its pid mean it. */
export function currentProcessPlace(): ProcessPlace {
  cached ??= {
    host: os.hostname(),
    boot: readOr(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8")),
    pidns: readOr(() => readlinkSync("/proc/self/ns/pid")),
    pid: process.pid,
  };
  return cached;
}

/** Whether a process with this pid exists in this pid namespace. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else, which still means it is alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
