import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchApi } from "../../../../electron/host/api/api-dispatcher.js";
import { CodeModeHost } from "../../../../electron/host/app/code-mode-host.js";
import { TOY_SERVER_UNIT_JS } from "../../../../test-support/toy-build.js";
import { until } from "../../../../test-support/wait.js";
import { api, startHostWithoutDocker, untilServerReady } from "../../../../test-support/daemon.js";
import { AUTH_REFUSALS_PER_MINUTE } from "../../audit/flood/refusal-limiter.js";

// No Docker needed: these are about the saved config, the catalog and what the UI is shown.
describe("the host's config edits", () => {
  const home = mkdtempSync(path.join(os.tmpdir(), "codemode-config-"));
  let host: CodeModeHost;

  beforeAll(async () => {
    host = await startHostWithoutDocker(home);
    const saved = await dispatchApi(host.api, "servers.upsert", {
      name: "toy",
      entry: { command: process.execPath, args: [TOY_SERVER_UNIT_JS] },
    });
    expect(saved.ok).toBe(true);
    await untilServerReady(host, "toy");
  });

  afterAll(async () => {
    await host.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it("two switches flipped at once both stick (edits run one after another)", async () => {
    const [a, b] = await Promise.all([
      dispatchApi(host.api, "servers.setToolPolicy", {
        name: "toy",
        tool: "read_secret",
        private: true,
      }),
      dispatchApi(host.api, "servers.setToolPolicy", { name: "toy", tool: "echo", private: true }),
    ]);
    expect(a.ok && b.ok).toBe(true);
    expect(host.config.servers.get("toy")?.private).toEqual(["read_secret", "echo"]);
    const privateInCatalog = host.engine.catalog.tools.filter((t) => t.private).map((t) => t.tool);
    expect(privateInCatalog.sort()).toEqual(["echo", "read_secret"]);
  });

  it("a pasted or saved config that names a server twice is refused, naming it", async () => {
    const before = host.config;
    const twice = '{"mcpServers": {"a": {"command": "one"}, "a": {"command": "two"}}}';
    for (const [method, params] of [
      ["config.parseSnippet", { text: twice }],
      ["config.save", { json: twice }],
    ] as const) {
      const refused = await dispatchApi(host.api, method, params as never);
      expect(refused).toMatchObject({
        ok: false,
        error: { code: "invalid", message: 'server name "a" is used more than once' },
      });
    }
    // Pasted bare (the mcpServers object alone), the name is the top-level key.
    const bare = await dispatchApi(host.api, "config.parseSnippet", {
      text: '{"a": {"command": "one"},\n "a": {"command": "two"}}',
    });
    expect(bare).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(bare.ok ? "" : bare.error.message).toContain('"a" appears more than once');
    const broken = await dispatchApi(host.api, "config.parseSnippet", {
      text: '{"a": {"command": "sk-secret-value"',
    });
    expect(broken.ok ? "" : broken.error.message).toMatch(
      /^The pasted text is not valid JSON at line 1, column \d+: /,
    );
    expect(JSON.stringify(broken)).not.toContain("sk-secret-value");
    // A client's whole config: what it names twice outside mcpServers is its own business.
    const whole = await dispatchApi(host.api, "config.parseSnippet", {
      text: '{"preferences": {"x": 1, "x": 2}, "mcpServers": {"b": {"command": "one"}}}',
    });
    expect(whole.ok).toBe(true);
    expect(host.config).toBe(before);
  });

  it("a bundle added under a name in use is refused on its Name field, as the other add forms are", async () => {
    const before = host.config;
    const refused = await dispatchApi(host.api, "servers.addBundle", {
      name: "toy",
      bundle: "AAAA",
      values: {},
    });
    expect(refused).toMatchObject({ ok: false, error: { code: "conflict" } });
    const fields = refused.ok ? [] : (refused.error.fields ?? []);
    expect(fields.map((field) => field.path)).toEqual([["name"]]);
    expect(fields[0]?.message).toMatch(/already exists: choose another name/);
    expect(host.config).toBe(before);
  });

  it("a config the catalog would refuse is refused before it is saved", async () => {
    const before = host.config;
    const refused = await dispatchApi(host.api, "servers.upsert", {
      name: "toy",
      entry: { command: process.execPath, args: [TOY_SERVER_UNIT_JS], private: ["no_such_tool"] },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(refused.ok ? "" : refused.error.message).toMatch(/no_such_tool/);
    expect(host.config).toBe(before);
  });

  it("saving a slow server returns at once: the server shows Starting, then Ready, and the next edit does not wait", async () => {
    const slow = {
      command: process.execPath,
      args: [TOY_SERVER_UNIT_JS],
      env: { TOY_START_DELAY_MS: "6000", TOY_TOOL_PREFIX: "slow_" },
    };
    const startedAt = Date.now();
    const saved = await api(host, "servers.upsert", { name: "slow", entry: slow });
    expect(saved.items.find((s) => s.name === "slow")?.status).toBe("starting");
    const other = await dispatchApi(host.api, "servers.setAsk", { name: "toy", ask: false });
    expect(other.ok).toBe(true);
    // Before, saving waited for the start (up to SERVER_START_TIMEOUT_MS) and so did the
    // edit after it.
    expect(Date.now() - startedAt).toBeLessThan(4_000);
    await untilServerReady(host, "slow");
    expect(host.engine.catalog.tools.some((t) => t.tool === "slow_echo")).toBe(true);
    await dispatchApi(host.api, "servers.remove", { name: "slow" });
  });

  it("never shows a secret value in a server's errors or stderr", async () => {
    const secret = "sk-live-0123456789abcdef";
    const saved = await dispatchApi(host.api, "servers.upsert", {
      name: "leaky",
      entry: {
        command: process.execPath,
        args: ["-e", "console.error('bad key ' + process.env.API_KEY); process.exit(1)"],
        env: { API_KEY: secret },
        secret: ["API_KEY"],
      },
    });
    expect(saved.ok).toBe(true);
    // Saving does not wait for the start: its failure (and stderr) follow on the server's status.
    await until(() => host.servers.get("leaky")?.status === "failed", "leaky to fail its start");
    const views = await dispatchApi(host.api, "servers.list", {});
    const shown = JSON.stringify(views);
    expect(shown).toContain("bad key");
    expect(shown).not.toContain(secret);
    const config = await dispatchApi(host.api, "config.get", {});
    expect(JSON.stringify(config)).not.toContain(secret);
  });

  it("keeps a stored secret only when told to, across a rename and a save of the whole text", async () => {
    const secret = "sk-kept-0123456789";
    const saved = (name: string) => host.config.servers.get(name)?.env.API_KEY;
    const entry = (value: string | { storedSecret: string }) => ({
      command: process.execPath,
      args: [TOY_SERVER_UNIT_JS],
      env: { API_KEY: value },
      secret: ["API_KEY"],
    });
    expect(
      (await dispatchApi(host.api, "servers.upsert", { name: "kept", entry: entry(secret) })).ok,
    ).toBe(true);

    // Renamed, the secret kept by name: the UI never had it, and does not send it.
    const renamed = await dispatchApi(host.api, "servers.upsert", {
      name: "kept2",
      previousName: "kept",
      entry: entry({ storedSecret: "API_KEY" }),
    });
    expect(renamed.ok).toBe(true);
    expect(saved("kept2")).toBe(secret);

    // The whole text holds no secret, and saving it unchanged keeps every one.
    const config = await dispatchApi(host.api, "config.get", {});
    const json = config.ok ? config.value.json : "";
    expect(json).not.toContain(secret);
    expect(JSON.parse(json)).toMatchObject({
      mcpServers: { kept2: { env: { API_KEY: { storedSecret: "API_KEY" } } } },
    });
    expect((await dispatchApi(host.api, "config.save", { json })).ok).toBe(true);
    expect(saved("kept2")).toBe(secret);

    // The mask is no longer a sentinel: sent back, it is a new value like any other text.
    const shown = (await dispatchApi(host.api, "servers.list", {})).ok
      ? host.serverViews().find((s) => s.name === "kept2")?.env[0]?.value
      : undefined;
    expect(shown).toMatch(/^••••/);
    await dispatchApi(host.api, "servers.upsert", { name: "kept2", entry: entry(shown ?? "") });
    expect(saved("kept2")).toBe(shown);

    // Keeping a secret that is not stored is refused on the field.
    const missing = await dispatchApi(host.api, "servers.upsert", {
      name: "kept3",
      entry: entry({ storedSecret: "API_KEY" }),
    });
    expect(missing).toMatchObject({
      ok: false,
      error: { code: "invalid", fields: [{ path: ["mcpServers", "kept3", "env", "API_KEY"] }] },
    });
    await dispatchApi(host.api, "servers.remove", { name: "kept2" });
  });

  it("refuses to copy a stored secret into a plain env key, so config.get and a try never show it", async () => {
    const secret = "ghp-stolen-0123456789";
    const entry = (env: Record<string, string | { storedSecret: string }>) => ({
      command: process.execPath,
      args: ["-e", "console.error('leak=' + process.env.LEAK); process.exit(1)"],
      env,
      secret: ["TOKEN"],
    });
    const first = await dispatchApi(host.api, "servers.upsert", {
      name: "gh",
      entry: entry({ TOKEN: secret }),
    });
    expect(first.ok).toBe(true);
    const leak = entry({ TOKEN: { storedSecret: "TOKEN" }, LEAK: { storedSecret: "TOKEN" } });
    const refused = await dispatchApi(host.api, "servers.upsert", { name: "gh", entry: leak });
    expect(refused).toMatchObject({
      ok: false,
      error: { code: "invalid", fields: [{ path: ["mcpServers", "gh", "env", "LEAK"] }] },
    });
    const config = await dispatchApi(host.api, "config.get", {});
    expect(JSON.stringify(config)).not.toContain(secret);
    const tried = await dispatchApi(host.api, "servers.try", { name: "gh", entry: leak });
    expect(tried).toMatchObject({ ok: false, error: { code: "invalid" } });
    expect(JSON.stringify(tried)).not.toContain(secret);
    await dispatchApi(host.api, "servers.remove", { name: "gh" });
  });

  it("logs refused connections one by one only up to a rate, so knocking cannot fill the disk", async () => {
    const knock = () =>
      new Promise<void>((resolve) => {
        const socket = net.connect(host.socketPath, () => socket.write("CODEMODE wrong\n"));
        socket.on("data", () => socket.destroy());
        socket.on("close", () => resolve());
        socket.on("error", () => resolve());
      });
    for (let i = 0; i < AUTH_REFUSALS_PER_MINUTE + 5; i++) await knock();
    await host.auditDurable();
    const logged = await dispatchApi(host.api, "audit.query", {
      filter: { kinds: ["auth_refused"] },
      limit: 1000,
    });
    expect(logged.ok && logged.value.entries.length).toBe(AUTH_REFUSALS_PER_MINUTE);
  });
});
