// Opens a link to the browser UI in the user's browser (`npm start` on the headless path,
// `codemode ui open`). The link goes into the opener's arguments, which every user of the
// machine can read while it (and often the browser it starts) runs: so it must be a one-time
// link (ui-access.ts), never a lasting key.
import { spawn, spawnSync } from "node:child_process";

/** The platform's "open this URL" command, or undefined where nothing can show one. */
export function browserCommand(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  hasCommand: (name: string) => boolean,
): [string, string[]] | undefined {
  if (env.CODEMODE_NO_BROWSER) return undefined;
  if (platform === "darwin") return ["open", [url]];
  if (platform === "win32") return ["cmd", ["/c", "start", "", url]];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return hasCommand("xdg-open") ? ["xdg-open", [url]] : undefined;
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { env, stdio: "ignore" }).status === 0;
}

/**
 * Starts the opener detached (it may outlive us, as a browser does); false when this machine
 * has no way to show a page, so the caller prints the link instead.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const command = browserCommand(url, env, process.platform, (name) => onPath(name, env));
  if (command === undefined) return false;
  const child = spawn(command[0], command[1], { stdio: "ignore", detached: true, env });
  child.on("error", () => undefined);
  child.unref();
  return true;
}
