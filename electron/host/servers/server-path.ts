// The PATH wrapped servers start with.
//
// A GUI app (macOS gives them /usr/bin:/bin:/usr/sbin:/sbin) and an app started by a
// client's shim (Claude Desktop starts it with a minimal PATH) do not see what the user's
// terminal sees, so `npx`, `uvx` or `docker` in a server entry are not found and the
// server's tools just vanish. At start the host asks the user's login shell for its PATH
// (as `shell-env` does: `$SHELL -ilc`, the value printed between markers, with a timeout),
// then adds the usual install locations that exist, merged without duplicates. Only PATH
// is taken from the shell: the rest of its environment (tokens, keys) stays out of servers.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppInfoView } from "../../../shared/api/api-views.js";
import { KiB } from "../util/units.js";
import { signalGroup } from "./process-tree.js";

/**
 * The login shell (`$SHELL -ilc`) must print its PATH within this; a slow profile (nvm,
 * conda) takes a second or two. Past it the host goes on with the usual locations.
 */
export const LOGIN_SHELL_TIMEOUT_MS = 5_000;

/**
 * A login shell past its timeout gets SIGTERM and this long before SIGKILL. What a profile
 * runs may hold a lock that its exit trap removes (pyenv's rehash does): a SIGKILL left the
 * lock behind, and every later shell of the user waited on it.
 */
export const LOGIN_SHELL_TERM_GRACE_MS = 1_000;

/** What is kept of the login shell's output: a profile that prints without end is cut. */
export const LOGIN_SHELL_OUTPUT_MAX_CHARS = 256 * KiB;

/** PATH entries kept after merging; more is a broken profile, not a real setup. */
export const PATH_MAX_ENTRIES = 256;

const START = "__CODEMODE_PATH_START__";
const END = "__CODEMODE_PATH_END__";

/** What wrapped servers get for PATH, as `app.info` shows it (see AppInfoView). */
export type ServerPath = AppInfoView["serverPath"];

/** Where one PATH entry came from, in the order the entries are merged. */
export type PathSource = ServerPath["entries"][number]["source"];

export type ShellPathResult = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The text between the markers, read with two indexOf calls (linear, whatever the user's
 * profile prints around it). Null when the markers are not both there.
 */
export function parseMarkedOutput(output: string): string | null {
  const start = output.indexOf(START);
  if (start < 0) return null;
  const from = start + START.length;
  const end = output.indexOf(END, from);
  if (end < 0) return null;
  return output.slice(from, end).trim();
}

/** The shell command run by the login shell: plain words, so sh, bash, zsh and fish all take it. */
export const SHELL_COMMAND = `printf %s ${START}; printenv PATH; printf %s ${END}`;

/** Runs `shell -ilc` and reads PATH from it; a timeout, a failure or no markers is a reason. */
export function loginShellPath(
  shell: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number = LOGIN_SHELL_TIMEOUT_MS,
): Promise<ShellPathResult> {
  return new Promise((resolve) => {
    let output = "";
    let settled = false;
    const finish = (result: ShellPathResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(shell, ["-ilc", SHELL_COMMAND], {
        // oh-my-zsh would otherwise ask about updates and wait.
        env: { ...env, DISABLE_AUTO_UPDATE: "true" },
        stdio: ["ignore", "pipe", "ignore"],
        // Its own process group, so a timeout ends what the profile started too.
        detached: true,
      });
    } catch (error) {
      resolve({ ok: false, reason: `${shell} could not start: ${String(error)}` });
      return;
    }
    const timer = setTimeout(() => {
      const group = child.pid;
      if (group !== undefined) {
        // Sent now, not on a later tick: a CLI command may exit as soon as it has its answer.
        signalGroup(group, "SIGTERM");
        setTimeout(() => signalGroup(group, "SIGKILL"), LOGIN_SHELL_TERM_GRACE_MS);
      }
      finish({ ok: false, reason: `${shell} -ilc gave no PATH within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      // A profile that prints without end must not grow the host's memory.
      if (output.length < LOGIN_SHELL_OUTPUT_MAX_CHARS) output += chunk;
      // Done as soon as the end marker is out: something the profile started in the
      // background may keep the pipe open long after the shell itself is done.
      const value = parseMarkedOutput(output);
      if (value !== null && value !== "") {
        child.stdout?.destroy();
        child.unref();
        finish({ ok: true, path: value });
      }
    });
    child.on("error", (error) => finish({ ok: false, reason: `${shell}: ${error.message}` }));
    child.on("close", (code) => {
      const value = parseMarkedOutput(output);
      if (value === null || value === "") {
        finish({ ok: false, reason: `${shell} -ilc exited ${String(code)} without printing PATH` });
      } else {
        finish({ ok: true, path: value });
      }
    });
  });
}

/** The usual install locations of npx, uvx, docker and friends, for a home directory. */
export function wellKnownDirs(home: string, platform: NodeJS.Platform): string[] {
  if (platform === "win32") return [];
  const inHome = (...parts: string[]): string => path.join(home, ...parts);
  return [
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "/opt/homebrew/sbin",
    "/home/linuxbrew/.linuxbrew/bin",
    "/opt/local/bin",
    "/snap/bin",
    "/Applications/Docker.app/Contents/Resources/bin",
    inHome(".local", "bin"),
    inHome("bin"),
    inHome(".volta", "bin"),
    inHome(".nvm", "current", "bin"),
    inHome(".fnm", "aliases", "default", "bin"),
    inHome(".asdf", "shims"),
    inHome(".local", "share", "mise", "shims"),
    inHome(".cargo", "bin"),
    inHome(".bun", "bin"),
    inHome(".deno", "bin"),
    inHome(".npm-global", "bin"),
    inHome("Library", "pnpm"),
    inHome(".local", "share", "pnpm"),
    inHome(".docker", "bin"),
    "/usr/bin",
    "/bin",
    "/usr/sbin",
    "/sbin",
  ];
}

/** Splits a PATH value, keeping only absolute directories (a relative one would follow the cwd). */
export function splitPath(value: string, delimiter: string = path.delimiter): string[] {
  return value
    .split(delimiter)
    .map((dir) => dir.trim())
    .filter((dir) => dir !== "" && path.isAbsolute(dir));
}

/** Merges the lists in order, each directory once, at most PATH_MAX_ENTRIES. */
export function mergePath(
  lists: { source: PathSource; dirs: readonly string[] }[],
): ServerPath["entries"] {
  const seen = new Set<string>();
  const merged: ServerPath["entries"] = [];
  for (const { source, dirs } of lists) {
    for (const dir of dirs) {
      const key = dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
      if (seen.has(key) || merged.length >= PATH_MAX_ENTRIES) continue;
      seen.add(key);
      merged.push({ dir: key, source });
    }
  }
  return merged;
}

export interface ResolveServerPathOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  exists?: (dir: string) => boolean;
  timeoutMs?: number;
}

/** The user's login shell: $SHELL, else the account's shell, else the platform's default. */
function userShell(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
  if (env.SHELL) return env.SHELL;
  try {
    const fromAccount = os.userInfo().shell;
    if (fromAccount) return fromAccount;
  } catch {
    // No account entry (some containers): use the default below.
  }
  return platform === "darwin" ? "/bin/zsh" : "/bin/sh";
}

/**
 * What wrapped servers get for PATH: the login shell's PATH first (the order the user's
 * terminal resolves commands in), then this process's own, then the usual install
 * locations that exist.
 */
export async function resolveServerPath(
  options: ResolveServerPathOptions = {},
): Promise<ServerPath> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const exists = options.exists ?? existsSync;
  const home = env.HOME ?? os.homedir();
  const delimiter = platform === "win32" ? ";" : ":";
  const own = splitPath(env.PATH ?? env.Path ?? "", delimiter);
  if (platform === "win32") {
    // Windows apps get the user's PATH from the registry, whatever started them.
    const entries = mergePath([{ source: "process", dirs: own }]);
    return { path: join(entries, delimiter), entries, shell: null, shellProblem: null };
  }
  const shell = userShell(env, platform);
  const fromShell = await loginShellPath(shell, env, options.timeoutMs);
  const entries = mergePath([
    { source: "login-shell", dirs: fromShell.ok ? splitPath(fromShell.path, delimiter) : [] },
    { source: "process", dirs: own },
    { source: "well-known", dirs: wellKnownDirs(home, platform).filter((dir) => exists(dir)) },
  ]);
  return {
    path: join(entries, delimiter),
    entries,
    shell,
    shellProblem: fromShell.ok ? null : fromShell.reason,
  };
}

function join(entries: ServerPath["entries"], delimiter: string): string {
  return entries.map((entry) => entry.dir).join(delimiter);
}
