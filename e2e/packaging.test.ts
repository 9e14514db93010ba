import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeHost } from "../electron/host/app/code-mode-host.js";
import { tokenHeaderCommand } from "../electron/host/api/clients/client-snippets.js";
import { packageRoot } from "../electron/host/util/paths.js";

const root = packageRoot();
const shimBundle = path.join(root, "dist-shim", "codemode-shim.mjs");

// What ships to users besides the app: the one-file shim (inside the app and the MCPB
// bundle) and the MCPB bundle itself. `npm run build` makes the shim bundle.
describe("shipped artifacts", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-pack-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    expect(existsSync(shimBundle), "npm run build makes dist-shim/codemode-shim.mjs").toBe(true);
    host = await CodeModeHost.start({
      dataDir: home,
      version: "test",
      shimLaunch: { command: process.execPath, args: [shimBundle], env: {} },
      // No Docker needed: these tests stop at listing tools.
      findDocker: () =>
        Promise.resolve({ state: "not-installed", tried: [], message: "not needed here" }),
    });
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("the bundled shim works alone, with no node_modules beside it", async () => {
    const alone = mkdtempSync(path.join(os.tmpdir(), "codemode-shim-alone-"));
    const copy = path.join(alone, "index.mjs");
    copyFileSync(shimBundle, copy);
    const client = new Client({ name: "bundle-test", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [copy],
        env: { PATH: process.env.PATH ?? "", CODEMODE_HOME: home },
      }),
    );
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(["run_python"]);
    await client.close();
    rmSync(alone, { recursive: true, force: true });
  });

  it("the bundled shim alone is also the headers helper the Clients page gives Claude Code", () => {
    const alone = mkdtempSync(path.join(os.tmpdir(), "codemode-shim-alone-"));
    const copy = path.join(alone, "index.mjs");
    copyFileSync(shimBundle, copy);
    // As the packaged app launches its shim: its own executable and the bundle, no "shim" word.
    const helper = tokenHeaderCommand({
      command: process.execPath,
      args: [copy],
      env: { CODEMODE_HOME: home },
    });
    const printed = execFileSync("sh", ["-c", helper], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    const token = readFileSync(path.join(home, "token"), "utf8").trim();
    expect(JSON.parse(printed)).toEqual({ Authorization: `Bearer ${token}` });
    rmSync(alone, { recursive: true, force: true });
  });

  it("the Electron main process and preload bundle as Forge builds them, needing no node_modules", () => {
    execFileSync(process.execPath, [path.join(root, "scripts", "build-electron.mjs")], {
      cwd: root,
      stdio: "pipe",
    });
    const external = (file: string): string[] => {
      const code = readFileSync(path.join(root, ".vite", "build", file), "utf8");
      const names = [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1] ?? "");
      // Node built-ins and Electron are there at run time; anything else would be missing.
      return [...new Set(names)].filter(
        (name) => name !== "electron" && !builtinModules.includes(name.replace(/^node:/, "")),
      );
    };
    // ajv writes `require("ajv/dist/runtime/...")` into generated code as text, not a call; so
    // do ajv-formats and our re2js engine (the `code` strings ajv would use for standalone code).
    const codegenText = (name: string): boolean => name.startsWith("ajv") || name === "re2js";
    expect(external("main.cjs").filter((name) => !codegenText(name))).toEqual([]);
    // A sandboxed preload may load nothing but electron.
    expect(external("preload.cjs")).toEqual([]);
  });

  it("the MCPB bundle for Claude Desktop packs a valid manifest and the shim", () => {
    execFileSync(process.execPath, [path.join(root, "scripts", "build-mcpb.mjs")], {
      cwd: root,
      stdio: "pipe",
    });
    const bundle = path.join(root, "out", "codemode.mcpb");
    expect(existsSync(bundle)).toBe(true);
    const require = createRequire(import.meta.url);
    const cli = path.join(path.dirname(require.resolve("@anthropic-ai/mcpb")), "cli", "cli.js");
    const info = execFileSync(process.execPath, [cli, "info", bundle], { encoding: "utf8" });
    expect(info).toContain("codemode");
    const validated = execFileSync(
      process.execPath,
      [cli, "validate", path.join(root, "out", "mcpb", "manifest.json")],
      {
        encoding: "utf8",
      },
    );
    expect(validated).toMatch(/valid/i);
  });
});
