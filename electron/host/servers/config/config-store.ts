// The one owner of the servers config: it loads the file, and every change goes through one of
// its named operations on typed entries, then the same path: validate, ask the catalog, save
// atomically, apply. Changes run one at a time, each reading the config the previous one left,
// so two quick edits (two clicks, two windows) cannot each start from the old config and undo
// the other.

import { API_LIMITS } from "../../../../shared/limits.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { buildCatalog, CatalogError } from "../../core/catalog/catalog-builder.js";
import type { ServerTools } from "../../core/catalog/catalog-types.js";
import { loadFile } from "../../util/atomic-file.js";
import {
  decryptSecrets,
  encryptSecrets,
  NoSecretCodecError,
  type SecretCodec,
} from "./secret-codec.js";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { SerialQueue } from "../../util/serial-queue.js";
import {
  parseServersConfig,
  serializeServersConfig,
  validateServersConfig,
  type ConfigIssue,
} from "./server-config.js";
import type { ServerEntry, ServersConfig } from "../../core/ports/server-config-types.js";
import { entryToFile } from "./server-entry.js";
import { renamedServers } from "../launch-fingerprint.js";

export const SERVERS_FILE = "servers.json";

/**
 * An env value in an edit: a new value, or "keep the secret stored under this env name" (of
 * the server as saved before the edit, i.e. under its previous name when it is renamed). The
 * UI never holds a secret in full, so it cannot send one back; it says which one to keep.
 */
export type EnvEdit = string | { storedSecret: string };

/** A server entry as an edit gives it: like a saved one, but env values may keep stored secrets. */
export interface ServerEntryEdit extends Omit<ServerEntry, "env"> {
  env: Record<string, EnvEdit>;
}

export interface ToolPolicyChange {
  allowed?: boolean | undefined;
  private?: boolean | undefined;
  /** "Ask first" before each call to the tool. */
  ask?: boolean | undefined;
  /** Keep the tool's arguments out of the audit log. */
  hideArgs?: boolean | undefined;
}

export interface ConfigStoreOptions {
  /** The servers file (servers.json in the data directory). */
  file: string;
  /** Keeps secret env values encrypted at rest; absent: plain, in a 0600 file. */
  secretCodec?: SecretCodec | undefined;
  /**
   * The catalog's input for a config: each server's listed tools under the config's policy.
   * A config the catalog would refuse (a name clash, a private label naming no tool) is refused
   * before it is saved, in the catalog's words, rather than saved and not applied.
   */
  catalogInput: (config: ServersConfig) => ServerTools[];
  /** The tools a server lists right now (its own names); a policy names only those. */
  listedTools: (server: string) => string[];
  /**
   * Why the saved file must not be written (LoadedConfig.locked): every change is refused,
   * saying so, since saving would drop the servers it could not read. Absent: not locked.
   */
  locked?: string | null;
}

/**
 * Puts a saved config to work (engine, servers, audit); runs inside the change's turn.
 * `renames`: servers this change renamed, old name -> new name (their pins follow them).
 */
export type ConfigApply = (
  config: ServersConfig,
  summary: string,
  renames: ReadonlyMap<string, string>,
) => Promise<void>;

export interface LoadedConfig {
  config: ServersConfig;
  /** Why the saved file could not be used (it was kept aside), or null. */
  problem: string | null;
  /**
   * Why the file, sound but unreadable here, must not be written (secrets only the app can
   * read, in a process without its keychain), or null: it is left as it is.
   */
  locked: string | null;
}

/** Reads the servers file; a file that does not parse is kept aside and reported, never lost. */
export async function loadServersConfig(
  file: string,
  secretCodec: SecretCodec | undefined,
  now?: () => Date,
): Promise<LoadedConfig> {
  const empty: ServersConfig = { servers: new Map() };
  let loaded: Awaited<ReturnType<typeof loadFile<ServersConfig>>>;
  try {
    loaded = await loadFile(
      file,
      (text) => {
        const parsed = parseServersConfig(text);
        if (parsed.ok) {
          try {
            return { ok: true, value: decryptSecrets(parsed.config, secretCodec) };
          } catch (error) {
            // Not damage: the file is sound, and must stay as it is (below).
            if (error instanceof NoSecretCodecError) throw error;
            return { ok: false, problem: `${SERVERS_FILE}: ${(error as Error).message}` };
          }
        }
        return {
          ok: false,
          problem: `${SERVERS_FILE}: ${parsed.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("; ")}`,
        };
      },
      now,
    );
  } catch (error) {
    if (!(error instanceof NoSecretCodecError)) throw error;
    const locked =
      `${file} holds secrets encrypted with the system keychain of the Code Mode app, and no ` +
      "keychain can read them here: no servers run, and none can be changed, since saving " +
      "would drop them. Start the Code Mode app where its keychain is available (on Linux, " +
      "with the keyring unlocked), or move the file away to start with no servers.";
    return { config: empty, problem: locked, locked };
  }
  if (loaded.state === "ok") return { config: loaded.value, problem: null, locked: null };
  if (loaded.state === "missing") return { config: empty, problem: null, locked: null };
  return {
    config: empty,
    problem: `${loaded.problem}. It was kept as ${loaded.keptAs}; no servers are running until you fix or re-add them.`,
    locked: null,
  };
}

export function invalidConfig(errors: ConfigIssue[]): ApiFailure {
  return new ApiFailure("invalid", errors.map((e) => e.message).join("; "), errors);
}

function notFound(name: string): ApiFailure {
  return new ApiFailure("not_found", `no server named ${JSON.stringify(name)}`);
}

/**
 * A name a server is given now (added, renamed, or new in a saved file) must fit what the API
 * takes to reach that server again: a longer one was saved, then could not be edited,
 * restarted or removed. Names already saved are left alone, so an older file still loads.
 */
function checkNewName(name: string, path: string[]): void {
  const problem = newNameProblem(name);
  if (problem === null) return;
  const max = API_LIMITS.serverNameMaxChars;
  throw new ApiFailure("invalid", `server name is ${name.length} characters long: at most ${max}`, [
    { path, message: problem },
  ]);
}

/** What is wrong with a name a server is given now (see checkNewName), or null. */
export function newNameProblem(name: string): string | null {
  const max = API_LIMITS.serverNameMaxChars;
  if (name.length <= max) return null;
  return `Use a shorter name: at most ${max} characters (this one has ${name.length}).`;
}

/** A name already in use, as every add form (by hand, gallery, bundle) shows it. */
export function nameTaken(name: string): ApiFailure {
  return new ApiFailure("conflict", `a server named ${JSON.stringify(name)} already exists`, [
    {
      path: ["name"],
      message: "A server with this name already exists: choose another name, or edit that one.",
    },
  ]);
}

export class ConfigStore {
  #config: ServersConfig;
  readonly #queue = new SerialQueue();
  readonly #appliers: ConfigApply[] = [];

  constructor(
    config: ServersConfig,
    private readonly options: ConfigStoreOptions,
  ) {
    this.#config = config;
  }

  /**
   * Adds what puts each saved config to work. The store is made before what reads it (the
   * engine reads the config it applies), so those subscribe here once they are built.
   */
  onApply(apply: ConfigApply): void {
    this.#appliers.push(apply);
  }

  /** The config as last saved (secrets in plain text: never send it to the UI as is). */
  get current(): ServersConfig {
    return this.#config;
  }

  /** The saved entry of a server; not_found when there is none. */
  entry(name: string): ServerEntry {
    const entry = this.#config.servers.get(name);
    if (!entry) throw notFound(name);
    return entry;
  }

  /**
   * Replaces every server at once (the whole file edited, or imported). A server whose name
   * changed is told by how it starts (renamedServers), so it keeps its pins.
   */
  replaceAll(entries: ReadonlyMap<string, ServerEntryEdit>, summary: string): Promise<void> {
    return this.change(
      (current) => {
        const servers = new Map<string, ServerEntry>();
        for (const [name, entry] of entries) {
          if (!current.servers.has(name)) checkNewName(name, ["mcpServers", name]);
          servers.set(name, resolveSecrets(name, entry, current.servers.get(name)));
        }
        return servers;
      },
      summary,
      (before, after) => renamedServers(before.servers, after.servers),
    );
  }

  /**
   * Adds a server, or replaces the one of that name. With `previousName` (and a different
   * name) it renames that server: it must exist and the new name must be free; the renamed
   * server keeps its place in the list and its stored secrets. With `addOnly` (a form that
   * adds a server) a name already in use is refused instead of replacing that server.
   */
  upsert(
    name: string,
    entry: ServerEntryEdit,
    previousName?: string,
    options: { addOnly?: boolean } = {},
  ): Promise<void> {
    const renaming = previousName !== undefined && previousName !== name;
    const summary = renaming ? `server ${previousName} saved as ${name}` : `server ${name} saved`;
    return this.change(
      (current) => {
        const savedName = renaming ? previousName : name;
        if (renaming && !current.servers.has(previousName)) throw notFound(previousName);
        if (!current.servers.has(name)) checkNewName(name, ["name"]);
        if ((renaming || options.addOnly === true) && current.servers.has(name)) {
          throw nameTaken(name);
        }
        const resolved = resolveSecrets(name, entry, current.servers.get(savedName));
        if (!renaming) return new Map(current.servers).set(name, resolved);
        return new Map(
          [...current.servers].map(([key, value]) =>
            key === previousName ? [name, resolved] : [key, value],
          ),
        );
      },
      summary,
      () => new Map(renaming ? [[previousName, name]] : []),
    );
  }

  remove(name: string): Promise<void> {
    return this.change((current) => {
      if (!current.servers.has(name)) throw notFound(name);
      const servers = new Map(current.servers);
      servers.delete(name);
      return servers;
    }, `server ${name} removed`);
  }

  /** Allows or disallows one tool and marks it private or not, keeping the rest of the policy. */
  setToolPolicy(name: string, tool: string, change: ToolPolicyChange): Promise<void> {
    const listed = this.options.listedTools(name);
    const words = [
      change.allowed === undefined ? null : change.allowed ? "allowed" : "not allowed",
      change.private === undefined ? null : change.private ? "private" : "not private",
      change.ask === undefined ? null : change.ask ? "ask first" : "no asking",
      change.hideArgs === undefined
        ? null
        : change.hideArgs
          ? "arguments hidden from the log"
          : "arguments logged",
    ].filter((part) => part !== null);
    return this.change(
      (current) => {
        const entry = current.servers.get(name);
        if (!entry) throw notFound(name);
        if (!listed.includes(tool)) {
          throw new ApiFailure("not_found", `server ${name} has no tool ${JSON.stringify(tool)}`);
        }
        return new Map(current.servers).set(name, withToolPolicy(entry, tool, listed, change));
      },
      `tool ${tool} of ${name}: ${words.join(", ")}`,
    );
  }

  /** Sets "ask first" for every tool of a server at once (true), or for none (false). */
  setServerAsk(name: string, ask: boolean): Promise<void> {
    return this.change(
      (current) => {
        const entry = current.servers.get(name);
        if (!entry) throw notFound(name);
        const { ask: _old, ...rest } = entry;
        return new Map(current.servers).set(name, ask ? { ...rest, ask } : rest);
      },
      `server ${name}: ${ask ? "ask first for every tool" : "no asking"}`,
    );
  }

  /**
   * The one path of every change: validate, ask the catalog, save atomically, apply.
   * `renamed` tells the servers the change renamed (old name -> new name); none by default.
   */
  private change(
    next: (current: ServersConfig) => Map<string, ServerEntry>,
    summary: string,
    renamed: (before: ServersConfig, after: ServersConfig) => Map<string, string> = () => new Map(),
  ): Promise<void> {
    return this.#queue.run(async () => {
      const locked = this.options.locked ?? null;
      if (locked !== null) throw new ApiFailure("unavailable", locked);
      const config: ServersConfig = { servers: next(this.#config) };
      // Typed entries can still break rules across fields (a private label not in "allow", a
      // secret naming no env key): the file's own validation names them.
      const checked = validateServersConfig({
        mcpServers: Object.fromEntries([...config.servers].map(([n, e]) => [n, entryToFile(e)])),
      });
      if (!checked.ok) throw invalidConfig(checked.errors);
      this.checkCatalog(checked.config);
      await writeFileAtomic(
        this.options.file,
        serializeServersConfig(encryptSecrets(checked.config, this.options.secretCodec)),
      );
      const renames = renamed(this.#config, checked.config);
      this.#config = checked.config;
      for (const apply of this.#appliers) await apply(checked.config, summary, renames);
    });
  }

  private checkCatalog(config: ServersConfig): void {
    try {
      buildCatalog(this.options.catalogInput(config), { prefixWithServer: true });
    } catch (error) {
      if (!(error instanceof CatalogError)) throw error;
      throw new ApiFailure("invalid", error.message, [{ path: [], message: error.message }]);
    }
  }
}

/** The entry with every "keep the stored secret" replaced by the value saved before. */
export function resolveSecrets(
  name: string,
  entry: ServerEntryEdit,
  saved: ServerEntry | undefined,
): ServerEntry {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry.env)) {
    if (typeof value === "string") {
      env[key] = value;
      continue;
    }
    // A reference keeps a key's own saved secret and nothing else: pointing a plain key (or
    // another key) at a saved secret would hand its value to config.get or a try in clear.
    if (!entry.secretEnv.includes(key) || value.storedSecret !== key) {
      throw invalidConfig([
        {
          path: ["mcpServers", name, "env", key],
          message: `server ${JSON.stringify(name)}: env ${JSON.stringify(key)} can only keep its own stored secret, and only while it is marked secret (it names ${JSON.stringify(value.storedSecret)}${entry.secretEnv.includes(key) ? "" : " and is not secret"}); type its value`,
        },
      ]);
    }
    const stored = saved?.secretEnv.includes(key) ? saved.env[key] : undefined;
    if (stored === undefined) {
      throw invalidConfig([
        {
          path: ["mcpServers", name, "env", key],
          message: `server ${JSON.stringify(name)}: env ${JSON.stringify(key)} keeps the stored secret ${JSON.stringify(value.storedSecret)}, but no such secret is saved; type its value`,
        },
      ]);
    }
    env[key] = stored;
  }
  return { ...entry, env };
}

function withToolPolicy(
  entry: ServerEntry,
  tool: string,
  listed: readonly string[],
  change: ToolPolicyChange,
): ServerEntry {
  const toggle = (list: readonly string[], on: boolean): string[] =>
    on ? [...new Set([...list, tool])] : list.filter((t) => t !== tool);
  let { allow, private: labels } = entry;
  let ask = entry.ask ?? false;
  if (change.allowed !== undefined) {
    const next = toggle(allow ?? listed, change.allowed);
    // Every tool allowed again is the same as no allowlist: new tools stay visible.
    allow = listed.every((t) => next.includes(t)) ? null : next;
    // A tool no longer allowed cannot stay labelled private (the label would name no tool).
    if (!change.allowed && Array.isArray(labels)) labels = labels.filter((t) => t !== tool);
    if (!change.allowed && Array.isArray(ask)) ask = ask.filter((t) => t !== tool);
  }
  if (change.private !== undefined) {
    const current = labels === true ? listed : Array.isArray(labels) ? labels : [];
    const next = toggle(current, change.private);
    labels = next.length === 0 ? false : next;
  }
  if (change.ask !== undefined) {
    const current = ask === true ? listed : Array.isArray(ask) ? ask : [];
    const next = toggle(current, change.ask);
    ask = next.length === 0 ? false : next;
  }
  let hide = entry.hideArgs ?? false;
  if (change.hideArgs !== undefined) {
    const current = hide === true ? listed : Array.isArray(hide) ? hide : [];
    const next = toggle(current, change.hideArgs);
    hide = next.length === 0 ? false : next;
  }
  const { ask: _old, hideArgs: _oldHide, ...rest } = entry;
  return {
    ...rest,
    allow,
    private: labels,
    ...(ask === false ? {} : { ask }),
    ...(hide === false ? {} : { hideArgs: hide }),
  };
}
