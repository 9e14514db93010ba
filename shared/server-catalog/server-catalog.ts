// The catalog of well-known servers, shipped in the app (no download at run time), and the
// one pure function that turns an entry plus the user's values into an `mcpServers` entry.
// The host, the CLI and the renderer all use this module, so a server added from the
// gallery and one added with `codemode servers add --from-catalog` are the same entry.
import { SERVER_CATALOG_LIMITS } from "../limits.js";
import {
  serverCatalog,
  type CatalogEntry,
  type CatalogSetting,
  type CatalogValues,
} from "./catalog-schema.js";
import data from "./servers.json" with { type: "json" };

/** Checked when the module loads: a broken catalog fails every test at once, not one user later. */
export const SERVER_CATALOG: readonly CatalogEntry[] = serverCatalog.parse(data).servers;

export function findCatalogEntry(id: string): CatalogEntry | undefined {
  return SERVER_CATALOG.find((entry) => entry.id === id);
}

/** Entries whose id, name, description or tags hold every word of the query (any case). */
export function searchCatalog(
  query: string,
  catalog: readonly CatalogEntry[] = SERVER_CATALOG,
): CatalogEntry[] {
  const words = query
    .slice(0, SERVER_CATALOG_LIMITS.searchMaxChars)
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
  return catalog.filter((entry) => {
    const text = [entry.id, entry.name, entry.description, ...entry.tags].join(" ").toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** The `mcpServers` entry a catalog entry becomes (the shape the config file and the API take). */
export interface BuiltEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
  secret?: string[];
  private?: boolean;
  /** The catalog's suggestion: these tools ask the user first (see CatalogEntry.ask). */
  ask?: string[];
}

export interface SettingProblem {
  /** The setting's key, or "" for the request as a whole. */
  key: string;
  message: string;
}

export type BuildResult =
  { ok: true; entry: BuiltEntry } | { ok: false; problems: SettingProblem[] };

function valuesOf(raw: string | string[] | undefined): string[] {
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  // Blank values are what an untouched form field sends: they mean "not given".
  return list.map((value) => value.trim()).filter((value) => value !== "");
}

function describeSettings(settings: readonly CatalogSetting[]): string {
  if (settings.length === 0) return "it takes no settings";
  return `it takes ${settings.map((s) => `${s.key}${s.required ? " (required)" : ""}`).join(", ")}`;
}

/**
 * Builds the config entry for `entry` with the user's `values` (by setting key). Every
 * problem is reported, each naming its setting: an unknown key, a required setting left
 * empty, several values for a setting that takes one, a value with a NUL or over the limit.
 */
export function buildEntry(entry: CatalogEntry, values: CatalogValues): BuildResult {
  const problems: SettingProblem[] = [];
  const known = new Map(entry.settings.map((setting) => [setting.key, setting]));
  const given = Object.keys(values);
  if (given.length > SERVER_CATALOG_LIMITS.settingsMax) {
    return {
      ok: false,
      problems: [{ key: "", message: `at most ${SERVER_CATALOG_LIMITS.settingsMax} settings` }],
    };
  }
  for (const key of given) {
    if (!known.has(key)) {
      problems.push({
        key,
        message: `${entry.id} has no setting ${JSON.stringify(key)}: ${describeSettings(entry.settings)}`,
      });
    }
  }

  const args = [...entry.args];
  const env: Record<string, string> = {};
  const secret: string[] = [];
  for (const setting of entry.settings) {
    const list = valuesOf(
      Object.prototype.hasOwnProperty.call(values, setting.key) ? values[setting.key] : undefined,
    );
    if (list.length === 0) {
      if (setting.required) {
        problems.push({
          key: setting.key,
          message: `${setting.label} is required: ${setting.help}`,
        });
      }
      continue;
    }
    if (list.length > 1 && !setting.multiple) {
      problems.push({
        key: setting.key,
        message: `${setting.label} takes one value, not ${list.length}`,
      });
      continue;
    }
    if (list.length > SERVER_CATALOG_LIMITS.valuesPerSettingMax) {
      problems.push({
        key: setting.key,
        message: `${setting.label} takes at most ${SERVER_CATALOG_LIMITS.valuesPerSettingMax} values`,
      });
      continue;
    }
    const bad = list.find(
      (value) => value.includes("\0") || value.length > SERVER_CATALOG_LIMITS.valueMaxChars,
    );
    if (bad !== undefined) {
      problems.push({
        key: setting.key,
        message: bad.includes("\0")
          ? `${setting.label} holds a NUL character`
          : `${setting.label} is longer than ${SERVER_CATALOG_LIMITS.valueMaxChars} characters`,
      });
      continue;
    }
    const target = setting.target;
    if (target.type === "env") {
      env[target.name] = list[0] as string;
      if (setting.kind === "secret") secret.push(target.name);
    } else if (target.type === "arg") {
      args.push(...list);
    } else {
      for (const value of list) {
        if (target.joined) args.push(`${target.flag}=${value}`);
        else args.push(target.flag, value);
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    entry: {
      command: entry.command,
      args,
      env,
      ...(secret.length > 0 ? { secret } : {}),
      ...(entry.private ? { private: true } : {}),
      ...(entry.ask && entry.ask.length > 0 ? { ask: [...entry.ask] } : {}),
    },
  };
}

/** The server name an entry is added under when the user gives none. */
export function suggestedServerName(entry: CatalogEntry, taken: ReadonlySet<string>): string {
  if (!taken.has(entry.id)) return entry.id;
  for (let n = 2; ; n++) {
    const name = `${entry.id}-${n}`;
    if (!taken.has(name)) return name;
  }
}
