// What the UI sends (an entry, or a whole `mcpServers` object) turned into typed edits. Env
// values may be `{storedSecret: NAME}`, "keep the secret stored under NAME"; everything else
// must be exactly what the file accepts, checked by the file's own validation.

import { invalidConfig, type EnvEdit, type ServerEntryEdit } from "./config-store.js";
import { validateServersConfig } from "./server-config.js";

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function storedSecretOf(value: unknown): string | null {
  if (!isObject(value)) return null;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "storedSecret" && typeof value.storedSecret === "string"
    ? value.storedSecret
    : null;
}

/**
 * The servers of a `{mcpServers: {...}}` value as typed edits; `invalid` naming every problem
 * when it is not a valid config. Order is the value's own key order.
 */
export function editsFromValue(value: unknown): Map<string, ServerEntryEdit> {
  // Stored-secret references are taken out (left as "" for the check) and put back after.
  const kept = new Map<string, [string, string][]>();
  let plain = value;
  if (isObject(value) && isObject(value.mcpServers)) {
    // Object.fromEntries and spreads define own keys: a server named "__proto__" stays a name.
    const servers = Object.entries(value.mcpServers).map(([name, entry]): [string, unknown] => {
      if (!isObject(entry) || !isObject(entry.env)) return [name, entry];
      const refs: [string, string][] = [];
      const env = Object.entries(entry.env).map(([key, v]): [string, unknown] => {
        const stored = storedSecretOf(v);
        if (stored === null) return [key, v];
        refs.push([key, stored]);
        return [key, ""];
      });
      if (refs.length > 0) kept.set(name, refs);
      return [name, { ...entry, env: Object.fromEntries(env) }];
    });
    plain = { ...value, mcpServers: Object.fromEntries(servers) };
  }
  const checked = validateServersConfig(plain);
  if (!checked.ok) throw invalidConfig(checked.errors);
  return new Map(
    [...checked.config.servers].map(([name, entry]): [string, ServerEntryEdit] => {
      const env: Record<string, EnvEdit> = { ...entry.env };
      for (const [key, stored] of kept.get(name) ?? []) env[key] = { storedSecret: stored };
      return [name, { ...entry, env }];
    }),
  );
}

/** One server's entry as servers.upsert sends it, as a typed edit. */
export function editFromEntry(name: string, entry: unknown): ServerEntryEdit {
  const edit = editsFromValue({ mcpServers: { [name]: entry } }).get(name);
  // validateServersConfig returns every server it was given, or fails.
  if (!edit) throw new Error(`server ${JSON.stringify(name)} went missing in validation`);
  return edit;
}
