import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import {
  claudeDesktopConfigPath,
  claudeDesktopServers,
  platformFacts,
} from "../../clients/claude-desktop.js";
import type { CodeModeHost } from "../../host/code-mode-host.js";
import { maskSecret, toolViews } from "../../host/server-views.js";
import { serializeServersConfig, validateServersConfig } from "../../servers/server-config.js";
import type { ServersConfig } from "../../servers/server-config-types.js";
import { ApiFailure } from "../api-failure.js";

type Entries = Record<string, Record<string, unknown>>;

/** The saved config as the plain `mcpServers` object the UI edits. */
function plain(config: ServersConfig): Entries {
  return (JSON.parse(serializeServersConfig(config)) as { mcpServers: Entries }).mcpServers;
}

/**
 * The UI only ever sees secret values masked; when one comes back unchanged, the saved
 * value is kept, so editing a server never replaces a secret with its mask.
 */
function restoreSecrets(
  entries: Entries,
  config: ServersConfig,
  renamed: Map<string, string>,
): void {
  for (const [name, entry] of Object.entries(entries)) {
    const saved = config.servers.get(renamed.get(name) ?? name);
    const env = entry.env;
    if (!saved || typeof env !== "object" || env === null) continue;
    for (const [key, value] of Object.entries(env as Record<string, unknown>)) {
      const old = saved.env[key];
      if (old !== undefined && saved.secretEnv.includes(key) && value === maskSecret(old)) {
        (env as Record<string, string>)[key] = old;
      }
    }
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiFailure("invalid", `${what} is not valid JSON: ${(error as Error).message}`, [
      { path: [], message: "not valid JSON" },
    ]);
  }
}

function invalid(errors: { path: string[]; message: string }[]): ApiFailure {
  return new ApiFailure("invalid", errors.map((e) => e.message).join("; "), errors);
}

export function configHandlers(
  host: CodeModeHost,
): Pick<
  ApiHandlers,
  | "config.get"
  | "config.save"
  | "config.parseSnippet"
  | "config.claudeDesktopServers"
  | "servers.list"
  | "servers.upsert"
  | "servers.remove"
  | "servers.restart"
  | "servers.tools"
  | "servers.setToolPolicy"
> {
  /**
   * Every edit reads the config as saved when its turn comes (edits run one at a time), so
   * two quick edits cannot each start from the old config and undo the other. `change` may
   * return the renames it made (new name -> old), so secrets follow a renamed server.
   */
  const edit = (change: (entries: Entries) => Map<string, string> | void, summary: string) =>
    host.updateConfig((current) => {
      const entries = plain(current);
      const renamed = change(entries) ?? new Map<string, string>();
      restoreSecrets(entries, current, renamed);
      return { mcpServers: entries };
    }, summary);
  const existing = (entries: Entries, name: string): Record<string, unknown> => {
    const entry = entries[name];
    if (!entry) throw new ApiFailure("not_found", `no server named ${JSON.stringify(name)}`);
    return entry;
  };

  return {
    "config.get": () => {
      const masked = plain(host.config);
      for (const [name, entry] of Object.entries(masked)) {
        const saved = host.config.servers.get(name);
        const env = entry.env as Record<string, string> | undefined;
        if (!saved || !env) continue;
        for (const key of saved.secretEnv)
          if (env[key] !== undefined) env[key] = maskSecret(env[key]);
      }
      return { json: JSON.stringify({ mcpServers: masked }, null, 2), servers: host.serverViews() };
    },
    "config.save": async ({ json }) => {
      const value = parseJson(json, "The config");
      const entries = (value as { mcpServers?: unknown } | null)?.mcpServers;
      if (typeof entries !== "object" || entries === null) {
        // Let validation name the problem in its own words.
        const checked = validateServersConfig(value);
        if (!checked.ok) throw invalid(checked.errors);
      }
      return edit((current) => {
        for (const key of Object.keys(current)) delete current[key];
        Object.assign(current, entries as Entries);
      }, "config saved");
    },
    "config.parseSnippet": ({ text }) => {
      const value = parseJson(text, "The pasted text");
      // People paste either a whole client config or just its mcpServers object.
      const wrapped =
        typeof value === "object" && value !== null && "mcpServers" in value
          ? value
          : { mcpServers: value };
      const checked = validateServersConfig(wrapped);
      if (!checked.ok) throw invalid(checked.errors);
      return { servers: plain(checked.config) as never };
    },
    "config.claudeDesktopServers": async () => {
      const file = claudeDesktopConfigPath(platformFacts());
      return { path: file, servers: (await claudeDesktopServers(file)) as never };
    },
    "servers.list": () => host.serverViews(),
    "servers.upsert": ({ name, previousName, entry }) =>
      edit(
        (entries) => {
          const renamed = new Map<string, string>();
          if (previousName !== undefined && previousName !== name) {
            existing(entries, previousName);
            if (entries[name]) {
              throw new ApiFailure(
                "conflict",
                `a server named ${JSON.stringify(name)} already exists`,
                [{ path: ["name"], message: "this name is taken" }],
              );
            }
            delete entries[previousName];
            renamed.set(name, previousName);
          }
          entries[name] = entry;
          return renamed;
        },
        previousName === undefined || previousName === name
          ? `server ${name} saved`
          : `server ${previousName} saved as ${name}`,
      ),
    "servers.remove": ({ name }) =>
      edit((entries) => {
        existing(entries, name);
        delete entries[name];
      }, `server ${name} removed`),
    "servers.restart": async ({ name }) => {
      const server = host.servers.get(name);
      if (!server) throw new ApiFailure("not_found", `no server named ${JSON.stringify(name)}`);
      await server.restart().catch(() => undefined);
      return host.serverViews();
    },
    "servers.tools": ({ name }) => {
      existing(plain(host.config), name);
      return toolViews(host.servers, host.config, host.engine.catalog, name);
    },
    "servers.setToolPolicy": async ({ name, tool, allowed, private: isPrivate }) => {
      const listed = (host.servers.get(name)?.tools ?? []).map((t) => t.name);
      const change = [
        allowed === undefined ? null : allowed ? "allowed" : "not allowed",
        isPrivate === undefined ? null : isPrivate ? "private" : "not private",
      ].filter((part) => part !== null);
      await edit(
        (entries) => {
          const entry = existing(entries, name);
          if (!listed.includes(tool)) {
            throw new ApiFailure("not_found", `server ${name} has no tool ${JSON.stringify(tool)}`);
          }
          const toggle = (list: string[], on: boolean): string[] =>
            on ? [...new Set([...list, tool])] : list.filter((t) => t !== tool);
          if (allowed !== undefined) {
            const current = Array.isArray(entry.allow) ? (entry.allow as string[]) : listed;
            const next = toggle(current, allowed);
            // Every tool allowed again is the same as no allowlist: new tools stay visible.
            if (listed.every((t) => next.includes(t))) delete entry.allow;
            else entry.allow = next;
            // A tool no longer allowed cannot stay labelled private (the label would name no tool).
            if (!allowed && Array.isArray(entry.private)) {
              entry.private = (entry.private as string[]).filter((t) => t !== tool);
            }
          }
          if (isPrivate !== undefined) {
            const current =
              entry.private === true
                ? listed
                : Array.isArray(entry.private)
                  ? (entry.private as string[])
                  : [];
            const next = toggle(current, isPrivate);
            if (next.length === 0) delete entry.private;
            else entry.private = next;
          }
        },
        `tool ${tool} of ${name}: ${change.join(", ")}`,
      );
      return toolViews(host.servers, host.config, host.engine.catalog, name);
    },
  };
}
