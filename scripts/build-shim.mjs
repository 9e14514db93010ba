// Bundles `codemode shim` into one dependency-free ES module: shipped with the Electron
// app (run by the app's own executable as Node) and inside the MCPB bundle.
import { build } from "esbuild";

await build({
  entryPoints: ["electron/host/shim/shim-main.ts"],
  outfile: "dist-shim/codemode-shim.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning",
});
