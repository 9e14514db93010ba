import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { API_LIMITS } from "../../../../shared/limits.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import type { ServerTools } from "../../core/catalog/catalog-types.js";
import type { SecretCodec } from "./secret-codec.js";
import {
  ConfigStore,
  loadServersConfig,
  SERVERS_FILE,
  type ServerEntryEdit,
} from "./config-store.js";
import { parseServersConfig } from "./server-config.js";
import type { ServerEntry, ServersConfig } from "../../core/ports/server-config-types.js";

const schema = { type: "object" };
const LISTED: Record<string, string[]> = { notes: ["search", "read"], tracker: ["create"] };

function entry(extra: Partial<ServerEntryEdit> = {}): ServerEntryEdit {
  return {
    command: "node",
    args: [],
    env: {},
    secretEnv: [],
    allow: null,
    private: false,
    ...extra,
  };
}

function configOf(entries: Record<string, ServerEntry>): ServersConfig {
  return { servers: new Map(Object.entries(entries)) };
}

describe("ConfigStore", () => {
  let dir: string;
  let file: string;
  let applied: { summary: string; names: string[] }[];

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "codemode-config-store-"));
    file = path.join(dir, SERVERS_FILE);
    applied = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function store(
    config: ServersConfig = { servers: new Map() },
    codec?: SecretCodec,
    locked: string | null = null,
  ) {
    const made = new ConfigStore(config, {
      file,
      secretCodec: codec,
      locked,
      listedTools: (server) => LISTED[server] ?? [],
      catalogInput: (next): ServerTools[] =>
        [...next.servers].map(([server, e]) => ({
          server,
          tools: (LISTED[server] ?? []).map((name) => ({ name, inputSchema: schema })),
          allow: e.allow,
          private: e.private,
        })),
    });
    made.onApply((next, summary) => {
      applied.push({ summary, names: [...next.servers.keys()] });
      return Promise.resolve();
    });
    return made;
  }

  const saved = (): ServersConfig => {
    const parsed = parseServersConfig(readFileSync(file, "utf8"));
    if (!parsed.ok) throw new Error("the saved file does not parse");
    return parsed.config;
  };

  async function failure(promise: Promise<unknown>): Promise<ApiFailure> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiFailure);
    return error as ApiFailure;
  }

  it("adds a server: saved to the file, applied, and current", async () => {
    const s = store();
    await s.upsert("notes", entry({ args: ["notes.js"] }));
    expect([...s.current.servers.keys()]).toEqual(["notes"]);
    expect(saved().servers.get("notes")?.args).toEqual(["notes.js"]);
    expect(applied).toEqual([{ summary: "server notes saved", names: ["notes"] }]);
  });

  it("renames a server in place, keeping its stored secret, and refuses a taken name", async () => {
    const s = store(
      configOf({
        notes: { ...entry(), env: { KEY: "sk-1" }, secretEnv: ["KEY"] },
        tracker: entry() as ServerEntry,
      }),
    );
    await s.upsert(
      "jotter",
      entry({ env: { KEY: { storedSecret: "KEY" } }, secretEnv: ["KEY"] }),
      "notes",
    );
    expect([...s.current.servers.keys()]).toEqual(["jotter", "tracker"]);
    expect(s.current.servers.get("jotter")?.env).toEqual({ KEY: "sk-1" });
    expect(applied[0]?.summary).toBe("server notes saved as jotter");

    const taken = await failure(s.upsert("tracker", entry(), "jotter"));
    expect(taken.code).toBe("conflict");
    const missing = await failure(s.upsert("x", entry(), "nope"));
    expect(missing.code).toBe("not_found");
  });

  it("with addOnly, refuses a name in use on its name field and keeps that server", async () => {
    const s = store(configOf({ notes: entry({ args: ["notes.js"] }) as ServerEntry }));
    const taken = await failure(
      s.upsert("notes", entry({ args: ["other.js"] }), undefined, { addOnly: true }),
    );
    expect(taken.code).toBe("conflict");
    expect(taken.fields?.[0]?.path).toEqual(["name"]);
    expect(s.current.servers.get("notes")?.args).toEqual(["notes.js"]);
    expect(applied).toEqual([]);
    // Without it, the same call replaces the server (an edit).
    await s.upsert("notes", entry({ args: ["other.js"] }));
    expect(saved().servers.get("notes")?.args).toEqual(["other.js"]);
  });

  it("refuses a new name longer than the API takes to reach a server, keeping saved ones", async () => {
    const max = API_LIMITS.serverNameMaxChars;
    const saved = "s".repeat(max + 10);
    const s = store(configOf({ [saved]: entry() as ServerEntry }));
    const long = "n".repeat(max + 1);
    const added = await failure(s.upsert(long, entry()));
    expect(added.code).toBe("invalid");
    expect(added.fields?.[0]?.path).toEqual(["name"]);
    expect(added.fields?.[0]?.message).toContain(`at most ${max} characters`);
    const renamed = await failure(s.upsert(long, entry(), saved));
    expect(renamed.fields?.[0]?.path).toEqual(["name"]);
    const replaced = await failure(s.replaceAll(new Map([[long, entry()]]), "config saved"));
    expect(replaced.fields?.[0]?.path).toEqual(["mcpServers", long]);
    expect([...s.current.servers.keys()]).toEqual([saved]);
    // A name saved before the rule still loads and can be edited and saved again.
    await s.upsert(saved, entry({ args: ["again.js"] }));
    await s.upsert("n".repeat(max), entry());
    expect([...s.current.servers.keys()]).toEqual([saved, "n".repeat(max)]);
  });

  it("refuses to keep a stored secret that is not there, naming the env key", async () => {
    const s = store(configOf({ notes: { ...entry(), env: { KEY: "plain" } } }));
    const error = await failure(
      s.upsert("notes", entry({ env: { KEY: { storedSecret: "KEY" } }, secretEnv: ["KEY"] })),
    );
    expect(error.code).toBe("invalid");
    expect(error.fields?.[0]?.path).toEqual(["mcpServers", "notes", "env", "KEY"]);
    expect(s.current.servers.get("notes")?.env).toEqual({ KEY: "plain" });
  });

  it("refuses a stored-secret reference on a plain key or naming another key's secret", async () => {
    const s = store(
      configOf({ gh: { ...entry(), env: { TOKEN: "ghp-secret" }, secretEnv: ["TOKEN"] } }),
    );
    const leak = await failure(
      s.upsert(
        "gh",
        entry({
          env: { TOKEN: { storedSecret: "TOKEN" }, LEAK: { storedSecret: "TOKEN" } },
          secretEnv: ["TOKEN"],
        }),
      ),
    );
    expect(leak.code).toBe("invalid");
    expect(leak.fields?.[0]?.path).toEqual(["mcpServers", "gh", "env", "LEAK"]);
    expect(leak.message).toMatch(/env "LEAK" can only keep its own stored secret.*not secret/);
    // Marked secret but naming another key's secret: refused too.
    const other = await failure(
      s.upsert(
        "gh",
        entry({
          env: { TOKEN: { storedSecret: "TOKEN" }, COPY: { storedSecret: "TOKEN" } },
          secretEnv: ["TOKEN", "COPY"],
        }),
      ),
    );
    expect(other.fields?.[0]?.path).toEqual(["mcpServers", "gh", "env", "COPY"]);
    // The whole-file path (config.save) goes through the same rule.
    const all = await failure(
      s.replaceAll(
        new Map([["gh", entry({ env: { LEAK: { storedSecret: "TOKEN" } }, secretEnv: [] })]]),
        "config saved",
      ),
    );
    expect(all.fields?.[0]?.path).toEqual(["mcpServers", "gh", "env", "LEAK"]);
    expect(s.current.servers.get("gh")?.env).toEqual({ TOKEN: "ghp-secret" });
    expect(applied).toEqual([]);
  });

  it("removes a server, and says not_found for one that is not there", async () => {
    const s = store(configOf({ notes: entry() as ServerEntry }));
    await s.remove("notes");
    expect(s.current.servers.size).toBe(0);
    expect((await failure(s.remove("notes"))).code).toBe("not_found");
  });

  it("sets a tool policy: disallowing drops its private label; allowing all clears the list", async () => {
    const s = store(configOf({ notes: entry({ private: ["search"] }) as ServerEntry }));
    await s.setToolPolicy("notes", "search", { allowed: false });
    expect(s.current.servers.get("notes")).toMatchObject({ allow: ["read"], private: [] });
    await s.setToolPolicy("notes", "search", { allowed: true });
    expect(s.current.servers.get("notes")?.allow).toBeNull();
    await s.setToolPolicy("notes", "read", { private: true });
    expect(s.current.servers.get("notes")?.private).toEqual(["read"]);
    await s.setToolPolicy("notes", "read", { private: false });
    expect(s.current.servers.get("notes")?.private).toBe(false);
    expect(applied.at(-1)?.summary).toBe("tool read of notes: not private");
    expect((await failure(s.setToolPolicy("notes", "nope", { private: true }))).code).toBe(
      "not_found",
    );
  });

  it("sets ask first per tool and for a whole server; disallowing a tool stops asking", async () => {
    const s = store(configOf({ notes: entry() as ServerEntry }));
    await s.setToolPolicy("notes", "search", { ask: true });
    expect(s.current.servers.get("notes")?.ask).toEqual(["search"]);
    expect(applied.at(-1)?.summary).toBe("tool search of notes: ask first");
    await s.setToolPolicy("notes", "search", { allowed: false });
    expect(s.current.servers.get("notes")?.ask).toEqual([]);
    await s.setToolPolicy("notes", "search", { allowed: true });
    await s.setServerAsk("notes", true);
    expect(s.current.servers.get("notes")?.ask).toBe(true);
    // Every tool asks; switching one off asks for the rest.
    await s.setToolPolicy("notes", "read", { ask: false });
    expect(s.current.servers.get("notes")?.ask).toEqual(["search"]);
    await s.setServerAsk("notes", false);
    expect(s.current.servers.get("notes")?.ask).toBeUndefined();
    const saved = JSON.parse(readFileSync(file, "utf8")) as {
      mcpServers: Record<string, { ask?: unknown }>;
    };
    expect(saved.mcpServers.notes?.ask).toBeUndefined();
    expect((await failure(s.setServerAsk("nope", true))).code).toBe("not_found");
  });

  it("hides a tool's arguments from the log, saved as hideArgs, and shows them again", async () => {
    const s = store(configOf({ notes: entry() as ServerEntry }));
    await s.setToolPolicy("notes", "search", { hideArgs: true });
    expect(s.current.servers.get("notes")?.hideArgs).toEqual(["search"]);
    expect(applied.at(-1)?.summary).toBe("tool search of notes: arguments hidden from the log");
    const saved = () =>
      (
        JSON.parse(readFileSync(file, "utf8")) as {
          mcpServers: Record<string, { hideArgs?: unknown }>;
        }
      ).mcpServers.notes?.hideArgs;
    expect(saved()).toEqual(["search"]);
    await s.setToolPolicy("notes", "search", { hideArgs: false });
    expect(s.current.servers.get("notes")?.hideArgs).toBeUndefined();
    expect(saved()).toBeUndefined();
  });

  it("runs edits one at a time, each on the config the previous one left", async () => {
    const s = store(configOf({ notes: entry() as ServerEntry }));
    await Promise.all([
      s.setToolPolicy("notes", "search", { private: true }),
      s.setToolPolicy("notes", "read", { private: true }),
    ]);
    expect(s.current.servers.get("notes")?.private).toEqual(["search", "read"]);
  });

  it("refuses what the catalog would refuse, before saving", async () => {
    const s = store(configOf({ notes: entry() as ServerEntry }));
    const error = await failure(s.upsert("notes", entry({ private: ["no_such_tool"] })));
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(/no_such_tool/);
    expect(s.current.servers.get("notes")?.private).toBe(false);
    expect(applied).toEqual([]);
    expect(() => readFileSync(file)).toThrow();
  });

  it("refuses an entry whose fields disagree, in the file's own words", async () => {
    const s = store();
    const error = await failure(s.upsert("notes", entry({ secretEnv: ["MISSING"] })));
    expect(error.message).toMatch(/secret "MISSING" is not a key of "env"/);
  });

  it("replaces every server at once, keeping stored secrets that are asked for", async () => {
    const s = store(configOf({ notes: { ...entry(), env: { K: "v" }, secretEnv: ["K"] } }));
    await s.replaceAll(
      new Map([
        ["notes", entry({ env: { K: { storedSecret: "K" } }, secretEnv: ["K"] })],
        ["tracker", entry()],
      ]),
      "config saved",
    );
    expect(s.current.servers.get("notes")?.env).toEqual({ K: "v" });
    expect([...saved().servers.keys()]).toEqual(["notes", "tracker"]);
  });

  it("writes secrets through the codec and loads them back", async () => {
    const codec: SecretCodec = {
      encrypt: (plain) => Buffer.from(plain).toString("base64"),
      decrypt: (stored) => Buffer.from(stored, "base64").toString(),
    };
    await store(undefined, codec).upsert(
      "notes",
      entry({ env: { KEY: "sk-secret" }, secretEnv: ["KEY"] }),
    );
    expect(readFileSync(file, "utf8")).not.toContain("sk-secret");
    const loaded = await loadServersConfig(file, codec);
    expect(loaded.problem).toBeNull();
    expect(loaded.config.servers.get("notes")?.env).toEqual({ KEY: "sk-secret" });
  });

  it("leaves a file with secrets it cannot read as it is, and refuses to change it", async () => {
    const codec: SecretCodec = {
      encrypt: (plain) => Buffer.from(plain).toString("base64"),
      decrypt: (stored) => Buffer.from(stored, "base64").toString(),
    };
    // The app saved a secret; then a process without its keychain (the daemon) opens the file.
    const app = store(undefined, codec);
    await app.upsert("notes", entry({ env: { KEY: "sk-secret" }, secretEnv: ["KEY"] }));
    await app.upsert("tracker", entry());
    const before = readFileSync(file, "utf8");
    const loaded = await loadServersConfig(file, undefined);
    expect(loaded.config.servers.size).toBe(0);
    expect(loaded.locked).toContain("holds secrets encrypted with the system keychain");
    expect(loaded.problem).toBe(loaded.locked);
    expect(readdirSync(dir).filter((name) => name.includes(".invalid-"))).toEqual([]);
    const daemon = store(loaded.config, undefined, loaded.locked);
    const refused = await failure(daemon.upsert("time", entry()));
    expect(refused.code).toBe("unavailable");
    expect(refused.message).toContain("saving would drop them");
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("loads a missing file as no servers, and keeps a broken one aside with a problem", async () => {
    expect(await loadServersConfig(file, undefined)).toEqual({
      config: { servers: new Map() },
      problem: null,
      locked: null,
    });
    writeFileSync(file, "{ not json");
    const loaded = await loadServersConfig(file, undefined);
    expect(loaded.config.servers.size).toBe(0);
    expect(loaded.problem).toMatch(/servers\.json: .*not valid JSON.*It was kept as/);
  });
});
