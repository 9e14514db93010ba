import { writeLine } from "./cli-io.js";
import { run } from "./run.js";

/** Process wiring for the bin entry: signals become an abort, the result an exit status. */
export async function main(): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    // First signal: let the command clean up (containers, sockets). Second: give up.
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
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
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
