// Builds the MCPB bundle for Claude Desktop: the manifest and the bundled shim, packed by
// the mcpb CLI (which validates the manifest). Output: out/codemode.mcpb
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const stage = path.resolve("out/mcpb");
rmSync(stage, { recursive: true, force: true });
mkdirSync(path.join(stage, "server"), { recursive: true });
const manifest = JSON.parse(readFileSync("mcpb/manifest.json", "utf8"));
manifest.version = JSON.parse(readFileSync("package.json", "utf8")).version;
writeFileSync(path.join(stage, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
copyFileSync("dist-shim/codemode-shim.mjs", path.join(stage, "server", "index.mjs"));
// The package exports no package.json; the bin is found from its main entry.
const cli = path.join(path.dirname(require.resolve("@anthropic-ai/mcpb")), "cli", "cli.js");
execFileSync(process.execPath, [cli, "pack", stage, path.resolve("out/codemode.mcpb")], {
  stdio: "inherit",
});
