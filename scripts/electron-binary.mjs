// postinstall: fetch the Electron binary that `npm start` opens the desktop app with. Where it
// cannot be fetched (no network, a proxy, an offline mirror) the install still succeeds: this
// says so in one line, and `npm start` then runs the app headless in the browser.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

let installer;
try {
  installer = require.resolve("electron/install.js");
} catch {
  // `npm install --omit=dev`: no Electron at all, nothing to fetch.
  process.exit(0);
}

const result = spawnSync(process.execPath, [installer], {
  stdio: ["ignore", "inherit", "pipe"],
  encoding: "utf8",
});
if (result.status !== 0) {
  const lines = (result.stderr ?? "").split("\n").map((line) => line.trim());
  // The installer prints a whole stack; its first line says what went wrong.
  const reason = (lines.find((line) => line !== "") ?? `exit status ${result.status}`).slice(
    0,
    200,
  );
  process.stderr.write(
    `codemode: could not download the Electron binary (${reason}); npm start will run Code Mode headless with its UI in your browser. To retry: node node_modules/electron/install.js\n`,
  );
}
