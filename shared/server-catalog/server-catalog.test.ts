import { describe, expect, it } from "vitest";
import { validateServersConfig } from "../../electron/host/servers/config/server-config.js";
import { SERVER_CATALOG_LIMITS } from "../limits.js";
import { catalogEntry, serverCatalog, type CatalogEntry } from "./catalog-schema.js";
import data from "./servers.json" with { type: "json" };
import {
  buildEntry,
  findCatalogEntry,
  searchCatalog,
  SERVER_CATALOG,
  suggestedServerName,
} from "./server-catalog.js";

function entry(id: string): CatalogEntry {
  const found = findCatalogEntry(id);
  if (!found) throw new Error(`no catalog entry ${id}`);
  return found;
}

/** Some value for every required setting, as a user would fill the form. */
function sampleValues(e: CatalogEntry): Record<string, string | string[]> {
  return Object.fromEntries(
    e.settings
      .filter((s) => s.required)
      .map((s) => [s.key, s.multiple ? ["/tmp/a", "/tmp/b"] : `value-of-${s.key}`]),
  );
}

describe("the shipped server catalog", () => {
  it("validates against its schema", () => {
    const parsed = serverCatalog.safeParse(data);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  });

  it(`holds at least ${SERVER_CATALOG_LIMITS.minEntries} entries, each started by npx, uvx or docker`, () => {
    expect(SERVER_CATALOG.length).toBeGreaterThanOrEqual(SERVER_CATALOG_LIMITS.minEntries);
    for (const e of SERVER_CATALOG) expect(["npx", "uvx", "docker"]).toContain(e.command);
  });

  it("has the servers people look for first", () => {
    const ids = SERVER_CATALOG.map((e) => e.id);
    for (const id of [
      "filesystem",
      "memory",
      "everything",
      "sequential-thinking",
      "fetch",
      "git",
      "github",
      "slack",
      "postgres",
      "sqlite",
      "brave-search",
      "puppeteer",
      "playwright",
      "time",
    ]) {
      expect(ids).toContain(id);
    }
  });

  it("builds, for every entry, a config entry the config check accepts", () => {
    for (const e of SERVER_CATALOG) {
      const built = buildEntry(e, sampleValues(e));
      expect(built.ok, e.id).toBe(true);
      if (!built.ok) continue;
      const checked = validateServersConfig({ mcpServers: { [e.id]: built.entry } });
      expect(checked.ok ? [] : checked.errors, e.id).toEqual([]);
    }
  });

  it("keeps every token-like setting secret", () => {
    for (const e of SERVER_CATALOG) {
      for (const s of e.settings) {
        if (/token|key|password/i.test(s.label)) expect(s.kind, `${e.id}.${s.key}`).toBe("secret");
      }
    }
  });
});

describe("the catalog schema", () => {
  const base = {
    id: "x",
    name: "X",
    description: "d",
    tags: [],
    command: "npx",
    args: ["-y", "x"],
    settings: [],
    private: false,
  };
  const secretSetting = {
    key: "token",
    label: "Token",
    help: "h",
    kind: "secret",
    required: true,
  };

  it("refuses a secret passed as an argument, which would show in process lists", () => {
    const result = catalogEntry.safeParse({
      ...base,
      settings: [{ ...secretSetting, target: { type: "arg" } }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      "a secret setting must go into an env variable",
    ]);
  });

  it("refuses an npx entry without -y, which would wait for an answer nobody gives", () => {
    const result = catalogEntry.safeParse({ ...base, args: ["x"] });
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      'an npx entry must start its args with "-y"',
    ]);
  });

  it("refuses another command, an unknown key and two settings with one key", () => {
    expect(catalogEntry.safeParse({ ...base, command: "bash" }).success).toBe(false);
    expect(catalogEntry.safeParse({ ...base, extra: 1 }).success).toBe(false);
    const setting = { ...secretSetting, target: { type: "env", name: "A" } };
    expect(
      catalogEntry.safeParse({
        ...base,
        settings: [setting, { ...setting, target: { type: "env", name: "B" } }],
      }).success,
    ).toBe(false);
  });
});

describe("buildEntry", () => {
  it("puts folders after the package, one argument each", () => {
    const built = buildEntry(entry("filesystem"), { folders: ["/home/me/a", " /home/me/b "] });
    expect(built).toEqual({
      ok: true,
      entry: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/a", "/home/me/b"],
        env: {},
        private: true,
        ask: ["write_file", "edit_file", "create_directory", "move_file"],
      },
    });
  });

  it("asks first before the tools that change or send things, and the config takes it", () => {
    // Safe defaults: writing, moving and deleting come in asking the user first.
    expect(entry("memory").ask).toEqual(
      expect.arrayContaining(["delete_entities", "delete_observations", "delete_relations"]),
    );
    for (const e of SERVER_CATALOG) {
      const built = buildEntry(e, sampleValues(e));
      if (!built.ok) throw new Error(`${e.id}: ${JSON.stringify(built.problems)}`);
      expect(built.entry.ask ?? [], e.id).toEqual(e.ask ?? []);
      const checked = validateServersConfig({ mcpServers: { [e.id]: built.entry } });
      expect(checked.ok ? [] : checked.errors, e.id).toEqual([]);
    }
    // Nothing to ask about: no key at all, as before.
    expect(buildEntry(entry("time"), {})).not.toHaveProperty("entry.ask");
  });

  it("puts a token in env and marks it secret", () => {
    const built = buildEntry(entry("github"), { token: "ghp_abc" });
    expect(built.ok && built.entry.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_abc" });
    expect(built.ok && built.entry.secret).toEqual(["GITHUB_PERSONAL_ACCESS_TOKEN"]);
    // The docker command passes the variable by name only, never its value.
    expect(built.ok && built.entry.args.join(" ")).not.toContain("ghp_abc");
  });

  it("writes flags as FLAG VALUE or FLAG=VALUE, and leaves out optional ones left empty", () => {
    expect(buildEntry(entry("sqlite"), { "db-path": "/d.db" })).toMatchObject({
      entry: { args: ["mcp-server-sqlite", "--db-path", "/d.db"] },
    });
    expect(buildEntry(entry("time"), { timezone: "Europe/Paris" })).toMatchObject({
      entry: { args: ["mcp-server-time", "--local-timezone=Europe/Paris"] },
    });
    expect(buildEntry(entry("time"), { timezone: "  " })).toMatchObject({
      entry: { args: ["mcp-server-time"] },
    });
  });

  it("names a required setting left empty, with its help", () => {
    const built = buildEntry(entry("slack"), { "bot-token": "xoxb-1" });
    expect(built.ok).toBe(false);
    const problems = built.ok ? [] : built.problems;
    expect(problems.map((p) => p.key)).toEqual(["team-id"]);
    expect(problems[0]?.message).toContain("Workspace ID is required: Your workspace's ID");
  });

  it("names an unknown key and lists the ones the server takes", () => {
    const built = buildEntry(entry("sqlite"), { "db-path": "/d.db", dbpath: "/x" });
    expect(!built.ok && built.problems).toEqual([
      { key: "dbpath", message: 'sqlite has no setting "dbpath": it takes db-path (required)' },
    ]);
    expect(!buildEntry(entry("everything"), { x: "1" }).ok).toBe(true);
  });

  it("refuses several values for a one-value setting, a NUL and an over-long value", () => {
    const e = entry("sqlite");
    expect(buildEntry(e, { "db-path": ["/a", "/b"] })).toMatchObject({
      problems: [{ key: "db-path", message: "Database file takes one value, not 2" }],
    });
    expect(buildEntry(e, { "db-path": "/a\0b" })).toMatchObject({
      problems: [{ key: "db-path", message: "Database file holds a NUL character" }],
    });
    const long = "/" + "a".repeat(SERVER_CATALOG_LIMITS.valueMaxChars);
    const tooLong = buildEntry(e, { "db-path": long });
    expect(tooLong.ok ? "" : tooLong.problems[0]?.message).toBe(
      `Database file is longer than ${SERVER_CATALOG_LIMITS.valueMaxChars} characters`,
    );
  });
});

describe("searchCatalog and suggestedServerName", () => {
  it("matches every word in name, description or tags, in any case", () => {
    expect(searchCatalog("").length).toBe(SERVER_CATALOG.length);
    expect(searchCatalog("GitHub").map((e) => e.id)).toContain("github");
    expect(searchCatalog("database sql").map((e) => e.id)).toEqual(
      expect.arrayContaining(["sqlite", "postgres"]),
    );
    expect(searchCatalog("no such thing at all")).toEqual([]);
  });

  it("suggests the id, then id-2, id-3 when taken", () => {
    const e = entry("memory");
    expect(suggestedServerName(e, new Set())).toBe("memory");
    expect(suggestedServerName(e, new Set(["memory", "memory-2"]))).toBe("memory-3");
  });
});
