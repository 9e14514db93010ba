// `node dist/electron/host/shim/shim-main.js`: the smallest entry an MCP client can start.
// It skips the CLI so that nothing but the shim's own modules is loaded. The packaged app has
// only this entry, so with `token header` it prints the token's HTTP header for a client's
// headers helper, as `codemode token header` does (token-header.ts).

import { asksForTokenHeader } from "../util/token-header-args.js";
import { tokenHeaderJson } from "../ingress/local-access/token-header.js";
import { dataDir } from "../util/paths.js";
import { runShim } from "./shim.js";

if (asksForTokenHeader(process.argv.slice(2))) {
  try {
    process.stdout.write(`${await tokenHeaderJson(dataDir(process.env))}\n`);
  } catch (error) {
    process.stderr.write(`codemode token header: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
} else {
  process.exitCode = await runShim({
    dataDir: dataDir(process.env),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
