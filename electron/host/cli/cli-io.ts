import type { Readable, Writable } from "node:stream";

/** What a command may touch of its process: passed in, so tests can run commands in-process. */
export interface CliIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT/SIGTERM so commands can clean up (containers, sockets) first. */
  signal: AbortSignal;
}

/** A failure the user can act on: printed as one line, exit status 1, no stack. */
export class UserError extends Error {
  override name = "UserError";
}

export function writeLine(stream: Writable, text: string): void {
  stream.write(text.endsWith("\n") ? text : text + "\n");
}
