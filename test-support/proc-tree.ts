// What every user of this machine can read of a process tree (Linux /proc): each process's
// arguments, and, for processes of our own user, its environment. The attack tests read it as
// another local user would, to find what a secret may be seen in.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** `pid` and every process under it, now. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const tree: number[] = [];
  const walk = (p: number): void => {
    tree.push(p);
    for (const child of children.get(p) ?? []) walk(child);
  };
  walk(pid);
  return tree;
}

export interface ProcessText {
  pid: number;
  /** The arguments, space-separated (what `ps` shows every user). */
  cmdline: string;
  /** The environment, newline-separated ("" when it cannot be read). */
  environ: string;
}

function read(pid: number, file: string, separator: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0").join(separator);
  } catch {
    return "";
  }
}

/** The arguments and environment of each process of `pid`'s tree. */
export function processTexts(pid: number): ProcessText[] {
  return processTree(pid).map((p) => ({
    pid: p,
    cmdline: read(p, "cmdline", " "),
    environ: read(p, "environ", "\n"),
  }));
}

/** The arguments of every process on the machine now that hold `text`. */
export function argumentsHolding(text: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = read(Number(name), "cmdline", " ");
    if (cmdline.includes(text)) found.push(cmdline);
  }
  return found;
}

/**
 * Runs `command` with `sh -c` while reading every process's arguments over and over, as any
 * local user can: resolves with its exit, output, and each distinct command line seen holding
 * `secret` meanwhile (the run's own processes, short-lived ones too, are all on the machine).
 */
export async function runWatchingArguments(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; secret: string; timeoutMs?: number },
): Promise<{ status: number | null; output: string; seen: string[] }> {
  const child = spawn("sh", ["-c", command], { cwd: options.cwd, env: options.env });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (output += d.toString("utf8")));
  const seen = new Set<string>();
  let done = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once("close", (code) => {
      done = true;
      resolve(code);
    });
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  // A scan, then a turn of the event loop (so output and the exit are read), until it ends.
  while (!done) {
    for (const line of argumentsHolding(options.secret)) seen.add(line);
    await new Promise((resolve) => setImmediate(resolve));
  }
  clearTimeout(timer);
  return { status: await exited, output, seen: [...seen] };
}
