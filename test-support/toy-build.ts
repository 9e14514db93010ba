// The toy server compiled from its TypeScript source by esbuild, once per run of the
// integration project (its global setup): tests that need a real MCP server on stdio then need
// no build of dist/, and never run a stale one. The e2e tests run the built one, as the daemon
// does.
import { mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { repoRoot } from "./processes.js";

// Under node_modules, so the bundle's bare imports (the MCP SDK) resolve as they do for the
// source.
const OUT_DIR = path.join(repoRoot, "node_modules", ".cache", "codemode-tests");

/** The compiled toy server: `process.execPath` with `[TOY_SERVER_UNIT_JS]` starts it. */
export const TOY_SERVER_UNIT_JS = path.join(OUT_DIR, "toy-server.mjs");

export async function buildToyServer(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  // Written under a name of this run's own, then renamed: a concurrent run never sees half a file.
  const partial = `${TOY_SERVER_UNIT_JS}.${process.pid}.tmp`;
  await build({
    entryPoints: [path.join(repoRoot, "test-servers", "toy-server.ts")],
    outfile: partial,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  renameSync(partial, TOY_SERVER_UNIT_JS);
}
