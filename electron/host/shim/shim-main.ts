// `node dist/electron/host/shim/shim-main.js`: the smallest entry an MCP client can start.
// It skips the CLI so that nothing but the shim's own modules is loaded.

import { dataDir } from "../util/paths.js";
import { runShim } from "./shim.js";

process.exitCode = await runShim({
  dataDir: dataDir(process.env),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
