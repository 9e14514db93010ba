import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodeModeHost } from "../../../../electron/host/app/code-mode-host.js";
import type { SecretCodec } from "../../servers/config/secret-codec.js";
import { TOY_SERVER_UNIT_JS } from "../../../../test-support/toy-build.js";
import { api } from "../../../../test-support/daemon.js";
import { dispatchApi } from "../api-dispatcher.js";
import { until } from "../../../../test-support/wait.js";

// Servers imported from Claude Desktop or pasted as JSON bring their env (API
// keys, tokens) in as secrets: encrypted in servers.json, masked in the API, still given to
// the server. No Docker needed: this is about the saved config and the wrapped server.
const SECRET = "sk-live-12345678";

/** Stands in for the app's OS keychain codec (safeStorage), which needs Electron. */
const codec: SecretCodec = {
  encrypt: (plain) => Buffer.from(plain, "utf8").toString("base64"),
  decrypt: (stored) => Buffer.from(stored, "base64").toString("utf8"),
};

describe("imported env values are secret", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-import-"));
  const claudeConfig = path.join(home, "claude_desktop_config.json");
  const toy = { command: process.execPath, args: [TOY_SERVER_UNIT_JS], env: { API_KEY: SECRET } };
  let host: CodeModeHost;

  beforeAll(async () => {
    writeFileSync(claudeConfig, JSON.stringify({ mcpServers: { desk: toy } }, null, 2));
    host = await CodeModeHost.start({
      dataDir: path.join(home, "data"),
      version: "test",
      shimLaunch: { command: "node", args: [], env: {} },
      findDocker: () =>
        Promise.resolve({ state: "not-installed", tried: [], message: "not needed" }),
      secretCodec: codec,
      claudeDesktopConfigPath: () => claudeConfig,
    });
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  /** What the import dialogs do: each candidate upserted as the host handed it over. */
  async function addAll(servers: Record<string, unknown>): Promise<void> {
    for (const [name, entry] of Object.entries(servers)) {
      await api(host, "servers.upsert", { name, entry: entry as never });
    }
  }

  async function serverEnv(name: string, key: string): Promise<string> {
    await until(
      () => host.serverViews().find((s) => s.name === name)?.status === "ready",
      `${name} ready`,
    );
    const server = host.servers.get(name);
    if (!server) throw new Error(`no server ${name}`);
    const result = await server.callTool(
      "env",
      { name: key },
      { signal: new AbortController().signal, timeoutMs: 10_000 },
    );
    return (result.content as { text: string }[])[0]?.text ?? "";
  }

  it("Claude Desktop import and Paste JSON both keep API_KEY encrypted, masked and working", async () => {
    const found = await api(host, "config.claudeDesktopServers", {});
    expect(found.path).toBe(claudeConfig);
    await addAll(found.servers);

    const pasted = await api(host, "config.parseSnippet", {
      text: JSON.stringify({ mcpServers: { pasted: toy } }),
    });
    await addAll(pasted.servers);

    // At rest: not in plain text, but stored (encrypted) under the key.
    const onDisk = readFileSync(path.join(home, "data", "servers.json"), "utf8");
    expect(onDisk).not.toContain(SECRET);
    const saved = JSON.parse(onDisk) as {
      mcpServers: Record<string, { env: Record<string, string>; secret?: string[] }>;
    };
    for (const name of ["desk", "pasted"]) {
      const entry = saved.mcpServers[name];
      expect(entry?.secret).toEqual(["API_KEY"]);
      const stored = entry?.env.API_KEY ?? "";
      expect(stored.startsWith("enc:v1:")).toBe(true);
      expect(codec.decrypt(stored.slice("enc:v1:".length))).toBe(SECRET);
    }

    // In the API: masked in the server views and the config text.
    const views = (await api(host, "servers.list", {})).items;
    expect(JSON.stringify(views)).not.toContain(SECRET);
    for (const name of ["desk", "pasted"]) {
      const env = views.find((s) => s.name === name)?.env;
      expect(env?.map((e) => [e.name, e.secret])).toEqual([["API_KEY", true]]);
      expect(env?.[0]?.value.startsWith("••••")).toBe(true);
    }
    expect(JSON.stringify(await api(host, "config.get", {}))).not.toContain(SECRET);

    // The wrapped server still gets the real value.
    expect(await serverEnv("desk", "API_KEY")).toBe(SECRET);
    expect(await serverEnv("pasted", "API_KEY")).toBe(SECRET);
  });

  it("the user can still unmark an imported value", async () => {
    // Unmarking clears the field in the Servers page: the value is typed again, so a stored
    // secret is never turned into plain text by reference (that is refused, naming the key).
    await expect(
      api(host, "servers.upsert", {
        name: "pasted",
        previousName: "pasted",
        entry: { ...toy, env: { API_KEY: { storedSecret: "API_KEY" } }, secret: [] },
      }),
    ).rejects.toThrow(/env "API_KEY" can only keep its own stored secret/);
    await api(host, "servers.upsert", {
      name: "pasted",
      previousName: "pasted",
      entry: { ...toy, env: { API_KEY: SECRET }, secret: [] },
    });
    const view = (await api(host, "servers.list", {})).items.find((s) => s.name === "pasted");
    expect(view?.env).toEqual([{ name: "API_KEY", value: SECRET, secret: false }]);
  });

  it("a Claude Desktop config the import cannot read is the user's to fix, named as such", async () => {
    const before = readFileSync(claudeConfig, "utf8");
    try {
      writeFileSync(claudeConfig, "null");
      const refused = await dispatchApi(host.api, "config.claudeDesktopServers", {});
      expect(refused).toMatchObject({
        ok: false,
        error: {
          code: "invalid",
          message: `${claudeConfig} does not hold a JSON object, so Code Mode will not touch it.`,
        },
      });
    } finally {
      writeFileSync(claudeConfig, before);
    }
  });
});
