import type { CliIO } from "../cli-io.js";
import { dataDir } from "../../util/paths.js";
import { runShim, type ShimOptions } from "../../shim/shim.js";

const HELP = [
  "Usage: codemode shim",
  "",
  "Connects an MCP client's stdio to the running Code Mode app over its local socket.",
  "Put this command in your MCP client's config; it takes no options.",
  "If Code Mode is not running it tries to start it and waits up to 10 s.",
  "CODEMODE_HOME sets the data directory; CODEMODE_APP names the app to start.",
].join("\n");

/** `codemode shim`, in the shape of the CLI's command table. */
export async function shimCommand(
  argv: string[],
  io: CliIO,
  extra: Partial<Pick<ShimOptions, "connect" | "startApp" | "timeoutMs">> = {},
): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout.write(HELP + "\n");
    return 0;
  }
  if (argv.length > 0) {
    io.stderr.write(`codemode shim: takes no arguments (got ${argv.join(" ")})\n${HELP}\n`);
    return 2;
  }
  return runShim({
    dataDir: dataDir(io.env),
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    ...extra,
  });
}
