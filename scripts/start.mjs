// `npm start`: the desktop app where Electron can run here; otherwise the same app headless
// (`codemode daemon --ui`), saying in one line why, printing the UI's one-time link and
// opening it in a browser where there is one. Never reports a launch that did not happen.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { electronBinary, whyNoElectron } from "./electron-runnable.mjs";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Runs a child to its end, passing Ctrl-C, SIGTERM and SIGHUP (the terminal closed) on; exits
 * with its status. A Ctrl-C reaches the child from the terminal too, and npm passes each signal
 * on to this process again: the child takes any after the first as the same request.
 */
function runToEnd(child) {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  // The terminal may be gone (SIGHUP) while the child still says it is stopping.
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

async function startHeadless(why) {
  // Built by `npm start` before this script runs; the CLI opens links the same way.
  const { openInBrowser } = await import(
    pathToFileURL(path.join(root, "dist", "electron", "host", "cli", "open-browser.js")).href
  );
  process.stderr.write(
    `codemode: cannot open the desktop app: ${why}; running it headless (codemode daemon --ui) with its UI in your browser.\n`,
  );
  // Its stdin is a pipe only this process holds: however this process ends (killed, crashed),
  // the pipe closes and the daemon stops, its containers removed, instead of running on alone.
  const daemon = spawn(
    process.execPath,
    [path.join(root, "bin", "codemode.js"), "daemon", "--ui", "--stop-on-stdin-end"],
    {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let buffered = "";
  let opened = false;
  daemon.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    if (opened) return;
    buffered += chunk.toString("utf8");
    // Whole lines only: a link cut at a chunk's end would open a ticket that fails.
    const lines = buffered.split("\n").slice(0, -1);
    const url = lines.find((line) => line.startsWith("http://127.0.0.1:"));
    if (url === undefined) return;
    opened = true;
    // The link works once: the browser signs in with it, and it is worth nothing after.
    if (!openInBrowser(url.trim(), process.env)) {
      process.stderr.write(`codemode: open ${url.trim()} in a browser on this machine.\n`);
    }
  });
  runToEnd(daemon);
}

const binary = electronBinary();
const why = whyNoElectron({ binary, env: process.env, platform: process.platform });
if (why === null) {
  const forge = path.join(
    path.dirname(require.resolve("@electron-forge/cli/package.json")),
    "dist",
    "electron-forge.js",
  );
  runToEnd(
    spawn(process.execPath, [forge, "start", ...process.argv.slice(2)], {
      cwd: root,
      stdio: "inherit",
    }),
  );
} else {
  await startHeadless(why);
}
