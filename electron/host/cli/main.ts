import { writeLine } from "./cli-io.js";
import { run } from "./run.js";

/**
 * The signals that ask a command to stop: Ctrl-C (SIGINT), SIGTERM, and SIGHUP (the terminal it
 * runs in was closed). Each lets it clean up first (containers, servers, sockets).
 */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Process wiring for the bin entry: signals become an abort, the result an exit status. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  const onSignal = (): void => {
    if (!controller.signal.aborted) {
      controller.abort();
      return;
    }
    // Not a second request to stop, nor one to give up the clean-up: one Ctrl-C reaches a
    // process from the terminal and again from a parent that passes signals on (npm, npx,
    // `npm start`), and quitting at the second left the warm pool's containers behind. The
    // stop is bounded (a server's grace, a container's removal); Ctrl-\ or SIGKILL end it now.
    if (!toldStopping) {
      toldStopping = true;
      writeLine(
        process.stderr,
        "codemode: still stopping; to quit at once without cleaning up, press Ctrl-\\ or kill it",
      );
    }
  };
  let toldStopping = false;
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    process.exitCode = await run(process.argv.slice(2), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      signal: controller.signal,
    });
  } catch (error) {
    writeLine(
      process.stderr,
      `codemode: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exitCode = 1;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}
