import type { Readable, Writable } from "node:stream";
import { terminalText } from "../util/terminal-text.js";

/** What a command may touch of its process: passed in, so tests can run commands in-process. */
export interface CliIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT, SIGTERM or SIGHUP, so commands clean up (containers, sockets) first. */
  signal: AbortSignal;
}

/** A failure the user can act on: printed as one line, exit status 1, no stack. */
export class UserError extends Error {
  override name = "UserError";
}

/**
 * Every line the CLI prints goes through here, and much of it quotes text someone else chose
 * (a client's name, a server's tool name, a refusal reason, a build log), so nothing in it may
 * act on the terminal: see terminal-text.ts. Line breaks are the caller's own; text that must
 * stay on one line (an audit entry) is escaped by the caller first.
 */
export function writeLine(stream: Writable, text: string): void {
  const safe = terminalText(text, { multiline: true });
  stream.write(safe.endsWith("\n") ? safe : safe + "\n");
}

/** An error of node:util's parseArgs (an unknown option, a missing value): a usage error. */
export function isParseArgsError(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    typeof (error as NodeJS.ErrnoException).code === "string" &&
    ((error as NodeJS.ErrnoException).code ?? "").startsWith("ERR_PARSE_ARGS")
  );
}
