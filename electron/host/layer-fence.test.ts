// The lint rule that keeps the host's layers importing in one direction (eslint.layers.js):
// imports planted against it are reported, imports along it are not, and every folder of the
// host belongs to a layer. The planted files are linted as text under the paths they would
// have; their imports name real modules, which the rule must resolve to judge.
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { CORE, FACES, LAYERS, layerFence } from "../../eslint.layers.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const RULE = "import-x/no-restricted-paths";

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } },
      ...layerFence(root),
    ],
  });
});

/** The fence's messages for a file at `file` (repo-relative) importing `from`. */
async function fenceMessages(file: string, from: string): Promise<string[]> {
  const code = `import type * as planted from "${from}";\nexport type Planted = typeof planted;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  const messages = result?.messages ?? [];
  const other = messages.filter((m) => m.ruleId !== RULE);
  if (other.length > 0) throw new Error(`unexpected lint: ${JSON.stringify(other)}`);
  return messages.map((m) => m.message);
}

describe("the layer fence", () => {
  it.each([
    ["util imports core", "electron/host/util/planted.ts", "../core/ports/run-types.js"],
    ["core imports sandbox", "electron/host/core/planted.ts", "../sandbox/sandbox.js"],
    [
      "sandbox imports servers (a peer)",
      "electron/host/sandbox/planted.ts",
      "../servers/server-set.js",
    ],
    [
      "servers imports sandbox (a peer)",
      "electron/host/servers/planted.ts",
      "../sandbox/sandbox.js",
    ],
    [
      "sandbox imports the composition root",
      "electron/host/sandbox/planted.ts",
      "../app/code-mode-host.js",
    ],
    [
      "audit imports the composition root",
      "electron/host/audit/flood/planted.ts",
      "../../app/code-mode-host.js",
    ],
    ["audit imports the API", "electron/host/audit/planted.ts", "../api/event-hub.js"],
    [
      "the API imports ingress",
      "electron/host/api/planted.ts",
      "../ingress/mcp/client-sessions.js",
    ],
    [
      "ingress imports the composition root",
      "electron/host/ingress/planted.ts",
      "../app/run-gate.js",
    ],
    ["the composition root imports the CLI", "electron/host/app/planted.ts", "../cli/cli-io.js"],
    ["a host layer imports the shim", "electron/host/servers/planted.ts", "../shim/shim.js"],
    [
      "the catalog imports the bridge",
      "electron/host/core/catalog/planted.ts",
      "../bridge/bridge.js",
    ],
    [
      "the bridge imports the engine",
      "electron/host/core/bridge/planted.ts",
      "../engine/code-mode-engine.js",
    ],
    ["the shim imports the CLI", "electron/host/shim/planted.ts", "../cli/cli-io.js"],
    ["the shim imports the API", "electron/host/shim/planted.ts", "../api/event-hub.js"],
    [
      "the CLI reaches past app/index.ts",
      "electron/host/cli/planted.ts",
      "../app/code-mode-host.js",
    ],
    ["the shell reaches past app/index.ts", "electron/planted.ts", "./host/api/api-dispatcher.js"],
    [
      "the shell's IPC reaches a host layer",
      "electron/ipc/planted.ts",
      "../host/audit/audit-log.js",
    ],
    ["the host imports the shell", "electron/host/app/planted.ts", "../../tray/tray-state.js"],
    ["shared imports the host", "shared/planted.ts", "../electron/host/util/text-cut.js"],
  ])("reports %s", async (_what, file, from) => {
    const messages = await fenceMessages(file, from);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("restricted zone");
  });

  it.each([
    ["sandbox imports core", "electron/host/sandbox/planted.ts", "../core/ports/run-types.js"],
    ["audit imports servers", "electron/host/audit/planted.ts", "../servers/pins/pin-state.js"],
    ["ingress imports the API", "electron/host/ingress/planted.ts", "../api/api-dispatcher.js"],
    [
      "the engine imports the bridge",
      "electron/host/core/engine/planted.ts",
      "../bridge/bridge.js",
    ],
    ["the CLI imports app/index.ts", "electron/host/cli/planted.ts", "../app/index.js"],
    ["the CLI imports a lower layer", "electron/host/cli/planted.ts", "../audit/audit-verify.js"],
    [
      "the shim imports local access",
      "electron/host/shim/planted.ts",
      "../ingress/local-access/token.js",
    ],
    ["the shell imports app/index.ts", "electron/planted.ts", "./host/app/index.js"],
  ])("lets %s", async (_what, file, from) => {
    expect(await fenceMessages(file, from)).toEqual([]);
  });

  it("names the layer's own rule in its message", async () => {
    const [message] = await fenceMessages("electron/host/audit/planted.ts", "../api/event-hub.js");
    expect(message).toContain("audit/ imports only from util/, core/, sandbox/, servers/, audit/");
  });

  it("places every folder of the host, and of core, in a layer", () => {
    const folders = (dir: string) =>
      readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort();
    expect(folders("electron/host")).toEqual([...LAYERS.flat(), ...FACES].sort());
    expect(folders("electron/host/core")).toEqual([...CORE].sort());
  });

  it("is part of the project's lint config for production files, not tests", async () => {
    const project = new ESLint({ cwd: root });
    const rules = async (file: string) =>
      (
        (await project.calculateConfigForFile(path.join(root, file))) as {
          rules?: Record<string, unknown>;
        }
      ).rules ?? {};
    expect(Object.keys(await rules("electron/host/sandbox/sandbox.ts"))).toContain(RULE);
    expect(Object.keys(await rules("electron/main.ts"))).toContain(RULE);
    expect(Object.keys(await rules("electron/host/sandbox/warm-pool.test.ts"))).not.toContain(RULE);
  });
});
