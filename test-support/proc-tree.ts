// What every user of this machine can read of a process tree (Linux /proc): each process's
// arguments, and, for processes of our own user, its environment. The attack tests read it as
// another local user would, to find what a secret may be seen in.
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
