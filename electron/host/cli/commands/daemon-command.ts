import path from "node:path";
import { parseArgs } from "node:util";
import {
  AlreadyRunningError,
  CodeModeHost,
  DataDirTrustError,
  UiServer,
  capAppLogWhileRunning,
  type ShimLaunch,
} from "../../app/index.js";
import { dataDir, packageRoot } from "../../util/paths.js";
import { UserError, writeLine, type CliIO } from "../cli-io.js";
import { packageVersion } from "../../util/package-version.js";
import { HOST_LIMITS } from "../../../../shared/limits.js";

export const DAEMON_HELP = `Usage: codemode daemon [--ui] [--port N] [--stop-on-stdin-end]

Starts Code Mode without a window: the wrapped servers of the saved config, the sandbox,
the audit log, and the local socket that \`codemode shim\` connects MCP clients to.
Logs go to stderr. Ctrl-C (SIGINT), SIGTERM or SIGHUP (its terminal closed) shuts it down
cleanly: servers stopped with their process trees, containers removed.

  --ui                 also serve the Code Mode UI on 127.0.0.1 and print a link that opens it
                       (once, within ${HOST_LIMITS.uiTicketTtlMs / 1000} s; \`codemode ui open\` gives a new one)
  --port N             the UI's port (default: a free one)
  --stop-on-stdin-end  shut down when stdin ends too: a program that starts the daemon with
                       a pipe as its stdin (npm start) makes sure it never outlives it`;

/** Ignores a write that failed: the terminal the daemon was started from may be gone. */
function ignoreWriteErrors(stream: NodeJS.WritableStream): void {
  stream.on("error", () => undefined);
}

/** The command an MCP client runs to reach this install through the shim. */
export function cliShimLaunch(env: NodeJS.ProcessEnv): ShimLaunch {
  return {
    command: process.execPath,
    args: [path.join(packageRoot(), "bin", "codemode.js"), "shim"],
    env: env.CODEMODE_HOME ? { CODEMODE_HOME: path.resolve(env.CODEMODE_HOME) } : {},
  };
}

export async function daemonCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      ui: { type: "boolean" },
      port: { type: "string" },
      "stop-on-stdin-end": { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    writeLine(io.stdout, DAEMON_HELP);
    return 0;
  }
  let port = 0;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new UserError(
        `--port takes a port number from 1 to 65535, not ${JSON.stringify(values.port)}`,
      );
    }
    if (!values.ui) throw new UserError("--port goes with --ui");
  }
  // Its terminal closed (SIGHUP), each line it logs as it stops would fail (EIO): unheard, a
  // failed write ended the daemon before it had removed its containers.
  ignoreWriteErrors(io.stderr);
  ignoreWriteErrors(io.stdout);
  const log = (line: string): void => writeLine(io.stderr, `codemode daemon: ${line}`);
  const home = dataDir(io.env);
  let ui: UiServer | null = null;
  let host: CodeModeHost;
  try {
    host = await CodeModeHost.start({
      dataDir: home,
      version: packageVersion(),
      shimLaunch: cliShimLaunch(io.env),
      env: io.env,
      log,
      uiLink: () => {
        if (ui === null) return null;
        log("gave a new link to the UI (codemode ui open)");
        return ui.newLink();
      },
    });
  } catch (error) {
    if (error instanceof AlreadyRunningError || error instanceof DataDirTrustError) {
      throw new UserError(error.message);
    }
    throw error;
  }
  // Started by a shim, our output is the app log: keep it to its size cap while we run.
  const stopLogCap = capAppLogWhileRunning(home);
  let up = true;
  try {
    log(
      `ready: data in ${home}, MCP clients connect with \`codemode shim\` (socket ${host.socketPath})`,
    );
    // The host takes clients before a slow engine answers: its state is told once it has.
    void host.sandbox.settled(io.signal).then(() => {
      if (up && !io.signal.aborted) log(`docker: ${host.sandbox.dockerView().state}`);
    });
    if (values.ui) {
      ui = await UiServer.start({
        host,
        staticDir: path.join(packageRoot(), "renderer", "dist"),
        port,
        log,
      });
      // The link on stdout alone, so scripts and tests can read it; nowhere else, as it
      // signs a page in (once).
      writeLine(io.stdout, ui.newLink());
      log(
        `UI at ${ui.origin}: open the link printed on stdout (it works once, within ${HOST_LIMITS.uiTicketTtlMs / 1000} s), or run \`codemode ui open\` for a new one`,
      );
    }
    await stopAsked(io, values["stop-on-stdin-end"] === true);
    log("shutting down");
    return 0;
  } finally {
    up = false;
    // Read only to see it end: it would hold the daemon's event loop open.
    if (values["stop-on-stdin-end"]) io.stdin.destroy();
    stopLogCap();
    const closing = ui;
    ui = null;
    await closing?.close();
    await host.stop();
    log("stopped");
  }
}

/** Resolves at the first signal to stop (io.signal), or, with `onStdinEnd`, when stdin ends. */
function stopAsked(io: CliIO, onStdinEnd: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    io.signal.addEventListener("abort", () => resolve(), { once: true });
    if (!onStdinEnd) return;
    // However the program that holds the other end ends (killed, crashed), its end of the pipe
    // closes with it.
    for (const event of ["end", "close", "error"]) io.stdin.once(event, () => resolve());
    io.stdin.resume();
  });
}
