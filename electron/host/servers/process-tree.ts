// Ending a wrapped server's whole process tree, not only the process the host started. A
// server started through a wrapper (npx, uvx, `sh -c`) or one that starts helpers of its own
// has children that outlive a kill of its first process: they keep running as the user, and
// keep its pipes open, and with them the host's event loop (a stopped daemon stayed up as long
// as such a child lived).
//
// On POSIX the server is started as the leader of a process group of its own (spawn's
// `detached`) and the signals go to the group. Windows has no process groups: there
// `taskkill /T /F` ends the process and every process it started while it still runs. That
// branch is written to the documentation and unverified: no Windows machine runs these tests.
import { spawn, type ChildProcess } from "node:child_process";
import { waitAtMost } from "../util/wait-at-most.js";

/**
 * Stopping a server (the app stopping, a server removed, changed or restarted, the end of a
 * Try it): its stdin is closed and it gets this long to leave by itself...
 */
export const STOP_STDIN_GRACE_MS = 2_000;

/**
 * ...then its whole process tree gets SIGTERM and this long, then SIGKILL. A server that
 * ignores both, or a child of it holding its pipes, held the app's stop for as long as it
 * liked (a `sleep 60` in a server kept a SIGTERM'd daemon up ~70 s).
 */
export const STOP_TERM_GRACE_MS = 2_000;

/** How long a stop waits at each step: stdin closed, then SIGTERM, then SIGKILL. */
export interface StopGrace {
  stdinMs: number;
  termMs: number;
}

export const STOP_GRACE: StopGrace = {
  stdinMs: STOP_STDIN_GRACE_MS,
  termMs: STOP_TERM_GRACE_MS,
};

/** How often a stop looks whether the group still has members, while it waits its grace. */
const GROUP_POLL_MS = 50;

/**
 * Once the tree is ended, how long its pipes may take to close. Only a process that left the
 * group (setsid) can hold them longer: they are then closed on the host's side, so it cannot
 * keep the host's event loop (and a stopping app) alive.
 */
const PIPES_CLOSE_MS = 500;

/** Whether a child is started in a process group of its own here (POSIX only). */
export const OWN_PROCESS_GROUP = process.platform !== "win32";

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function exitOf(child: ChildProcess): Promise<void> {
  return running(child)
    ? new Promise((resolve) => child.once("exit", () => resolve()))
    : Promise.resolve();
}

/**
 * Whether the group led by `pgid` has a member this process may signal. An exited member the
 * system has not reaped yet still counts: a signal cannot tell it from a live one.
 */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    // ESRCH: none left. EPERM: only members of another user (a setuid program), out of reach.
    return false;
  }
}

/** Signals every member of the group `pgid` leads; one gone or out of reach is no error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already, or out of reach.
  }
}

function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (running(child)) child.kill(signal);
  } catch {
    // Gone already.
  }
}

/** Windows: ends `pid` and every process it started, resolving once taskkill is done. */
function taskkillTree(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const killer = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], {
      stdio: "ignore",
      windowsHide: true,
    });
    killer.once("error", () => resolve());
    killer.once("exit", () => resolve());
  });
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
}

/**
 * Stops a server with the usual grace: its stdin is closed and it gets `grace.stdinMs` to
 * leave; then (POSIX) its process group gets SIGTERM and `grace.termMs`, then SIGKILL. The
 * group is signalled even when the first process left by itself, since what it started may
 * still run (`sh -c 'sleep 777 & exec cat'` leaves `sleep 777` once `cat` is gone). On Windows
 * the tree gets `taskkill /T /F` after the stdin grace. Never rejects.
 */
export async function endProcessTree(
  child: ChildProcess,
  grace: StopGrace = STOP_GRACE,
): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const closed = new Promise<void>((resolve) => {
    if (child.stdout?.closed !== false && child.stderr?.closed !== false) resolve();
    child.once("close", () => resolve());
  });
  try {
    child.stdin?.end();
  } catch {
    // Its stdin is gone already.
  }
  await waitAtMost(exitOf(child), grace.stdinMs);
  if (!OWN_PROCESS_GROUP) {
    if (running(child)) await taskkillTree(pid);
    await waitAtMost(exitOf(child), grace.termMs);
  } else if (running(child) || groupAlive(pid)) {
    signalGroup(pid, "SIGTERM");
    // Signalled apart too, in case it moved itself to a group of its own.
    signalChild(child, "SIGTERM");
    await until(() => !running(child) && !groupAlive(pid), grace.termMs);
    signalGroup(pid, "SIGKILL");
    signalChild(child, "SIGKILL");
  }
  await waitAtMost(closed, PIPES_CLOSE_MS);
  closePipes(child);
}

/** Ends the whole tree at once, without grace: for a server that floods the host. */
export function killProcessTree(child: ChildProcess): void {
  // Nothing more is read: what it writes meanwhile would cost the host a parse.
  child.stdout?.destroy();
  child.stderr?.destroy();
  const pid = child.pid;
  if (pid === undefined) return;
  if (OWN_PROCESS_GROUP) signalGroup(pid, "SIGKILL");
  else if (running(child)) void taskkillTree(pid);
  signalChild(child, "SIGKILL");
}

function closePipes(child: ChildProcess): void {
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
}
