// A test-support script run as a real process (`node --import tsx`), for tests where several
// processes race for one file for real: it prints "ready" once loaded, then waits for the lines
// the test says on its stdin; the test reads what it printed once it has exited.
import { spawn } from "node:child_process";
import { repoRoot } from "./processes.js";

export interface RacingProcess {
  /** Settles once the script printed "ready" (or exited). */
  ready: Promise<void>;
  /** Writes one line to its stdin. */
  say: (line: string) => void;
  /** Writes one last line and closes its stdin. */
  end: (line: string) => void;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Starts `test-support/<script>` with `args`. */
export function startRacing(script: string, args: readonly string[]): RacingProcess {
  const file = `${repoRoot}/test-support/${script}`;
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    cwd: repoRoot,
  });
  let stdout = "";
  let stderr = "";
  let readied: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (readied = resolve));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith("ready\n")) readied();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  // "close", not "exit": at its exit the last lines it printed may still be in the pipe.
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
  void exited.then(() => readied());
  return {
    ready,
    say: (line) => child.stdin.write(`${line}\n`),
    end: (line) => child.stdin.end(`${line}\n`),
    exited,
  };
}
