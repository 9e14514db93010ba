// How the shim starts Code Mode when nothing answers on the socket: the app the user named,
// the installed desktop app, or `codemode daemon` of this very package. Node built-ins only:
// the shim must start fast.

import { spawn } from "node:child_process";
import { closeSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { appLogPath, openAppLog } from "../ingress/local-access/app-log.js";

export interface StartAppContext {
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** What the shim tried when it started Code Mode, for the message if it does not answer. */
export interface StartOutcome {
  /** What was started, as the user would recognise it; null when nothing was found to start. */
  started: string | null;
  /** The executables it tried or looked for, and whether each exists. */
  tried: { file: string; exists: boolean }[];
  /** Where the started app's output goes; null when it has no log. */
  logFile: string | null;
}

/**
 * Starts Code Mode if it can; returns what it started (a description, or the whole outcome),
 * or undefined when it started nothing.
 */
export type StartApp = (
  context: StartAppContext,
) => StartOutcome | string | undefined | Promise<StartOutcome | string | undefined>;

export interface StartCommand {
  file: string;
  args: string[];
  /** For messages: what the user would recognise. */
  description: string;
}

/**
 * What the default startApp would run: the app named by CODEMODE_APP (the user said so),
 * else `codemode daemon` of this very package when it is built.
 */
export function findStartCommand(
  env: NodeJS.ProcessEnv,
  from: string = path.dirname(fileURLToPath(import.meta.url)),
): StartCommand | undefined {
  const app = env.CODEMODE_APP;
  if (app) return { file: app, args: [], description: app };
  // The installed desktop app, where installers put it (the MCPB bundle has no package root).
  const installed = installedAppPaths(process.platform, env).find((file) => existsSync(file));
  const installedApp =
    installed === undefined
      ? undefined
      : { file: installed, args: [], description: "the Code Mode app" };
  const root = findPackageRoot(from);
  if (root === undefined) return installedApp;
  const bin = path.join(root, "bin", "codemode.js");
  // bin/codemode.js runs the compiled CLI; without dist/ it would only crash.
  const compiled = path.join(root, "dist", "electron", "host", "cli", "main.js");
  if (!existsSync(bin) || !existsSync(compiled)) return installedApp;
  return { file: process.execPath, args: [bin, "daemon"], description: "codemode daemon" };
}

/** Where the Code Mode app's installers put its executable on each platform. */
export function installedAppPaths(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? env.USERPROFILE ?? "";
  if (platform === "darwin") {
    return [
      "/Applications/Code Mode.app/Contents/MacOS/Code Mode",
      path.join(home, "Applications", "Code Mode.app", "Contents", "MacOS", "Code Mode"),
    ];
  }
  if (platform === "win32") {
    const local = env.LOCALAPPDATA ?? path.join(home, "AppData", "Local");
    return [path.join(local, "Programs", "codemode", "Code Mode.exe")];
  }
  return ["/opt/Code Mode/codemode", "/usr/bin/codemode-app"];
}

function withoutRunAsNode(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = { ...env };
  delete copy.ELECTRON_RUN_AS_NODE;
  return copy;
}

/**
 * Spawns Code Mode detached, so it outlives this shim and the client that started it, with its
 * output in the app log of the data directory. Says what it tried either way.
 */
export function defaultStartApp(context: StartAppContext): StartOutcome {
  const command = findStartCommand(context.env);
  if (command === undefined) {
    const tried = installedAppPaths(process.platform, context.env).map((file) => ({
      file,
      exists: existsSync(file),
    }));
    return { started: null, tried, logFile: null };
  }
  const exists = existsSync(command.file);
  const log = openAppLog(context.dataDir);
  try {
    const child = spawn(command.file, command.args, {
      detached: true,
      stdio: ["ignore", log ?? "ignore", log ?? "ignore"],
      windowsHide: true,
      // The packaged shim runs as the app's executable with ELECTRON_RUN_AS_NODE=1; passed on,
      // it would start the app as plain Node instead of the app.
      env: { ...withoutRunAsNode(context.env), CODEMODE_HOME: context.dataDir },
    });
    // A missing executable surfaces here; the wait that follows reports it as "not running".
    child.on("error", () => undefined);
    child.unref();
  } finally {
    // The child has its own copy of the descriptor.
    if (log !== null) closeSync(log);
  }
  return {
    started: command.description,
    tried: [{ file: command.file, exists }],
    logFile: log === null ? null : appLogPath(context.dataDir),
  };
}

function findPackageRoot(from: string): string | undefined {
  let dir = from;
  for (;;) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown };
        if (parsed.name === "codemode") return dir;
      } catch {
        // Not ours, or unreadable: keep walking up.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
