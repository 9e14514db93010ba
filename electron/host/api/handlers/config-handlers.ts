import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import {
  claudeDesktopConfigPath,
  claudeDesktopServers,
  platformFacts,
} from "../../clients/claude-desktop.js";
import type { CodeModeHost } from "../../host/code-mode-host.js";
import { maskSecret, toolViews } from "../../host/server-views.js";
import { invalidConfig, type ServerEntryEdit } from "../../servers/config-store.js";
import { entryToFile, validateServersConfig } from "../../servers/server-config.js";
import type { ServerEntry, ServersConfig } from "../../servers/server-config-types.js";
import { ApiFailure } from "../api-failure.js";

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiFailure("invalid", `${what} is not valid JSON: ${(error as Error).message}`, [
      { path: [], message: "not valid JSON" },
    ]);
  }
}

/** A value checked against the mcpServers shape; invalid when it is not one. */
function checked(value: unknown): ServersConfig {
  const result = validateServersConfig(value);
  if (!result.ok) throw invalidConfig(result.errors);
  return result.config;
}

/**
 * The UI only ever sees secret values masked; a secret that comes back as its own mask means
 * "keep the stored one", so editing a server never replaces a secret with its mask.
 */
function keepMaskedSecrets(entry: ServerEntry, saved: ServerEntry | undefined): ServerEntryEdit {
  const env: ServerEntryEdit["env"] = { ...entry.env };
  for (const [key, value] of Object.entries(entry.env)) {
    const old = saved?.env[key];
    if (old !== undefined && saved?.secretEnv.includes(key) && value === maskSecret(old)) {
      env[key] = { storedSecret: key };
    }
  }
  return { ...entry, env };
}

function fileEntries(config: ServersConfig) {
  return Object.fromEntries([...config.servers].map(([name, e]) => [name, entryToFile(e)]));
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
  const store = host.configStore;
  const views = () => host.serverViews();
  const tools = (name: string) => toolViews(host.servers, store.current, host.engine.catalog, name);
  const saved = (name: string) => store.current.servers.get(name);

  return {
    "config.get": () => {
      const masked = fileEntries(store.current);
      for (const entry of Object.values(masked)) {
        for (const key of entry.secret ?? [])
          if (entry.env[key] !== undefined) entry.env[key] = maskSecret(entry.env[key]);
      }
      return { json: JSON.stringify({ mcpServers: masked }, null, 2), servers: views() };
    },
    "config.save": async ({ json }) => {
      const config = checked(parseJson(json, "The config"));
      const entries = new Map(
        [...config.servers].map(([name, e]) => [name, keepMaskedSecrets(e, saved(name))]),
      );
      await store.replaceAll(entries, "config saved");
      return views();
    },
    "config.parseSnippet": ({ text }) => {
      const value = parseJson(text, "The pasted text");
      // People paste either a whole client config or just its mcpServers object.
      const wrapped =
        typeof value === "object" && value !== null && "mcpServers" in value
          ? value
          : { mcpServers: value };
      return { servers: fileEntries(checked(wrapped)) };
    },
    "config.claudeDesktopServers": async () => {
      const file = claudeDesktopConfigPath(platformFacts());
      return { path: file, servers: (await claudeDesktopServers(file)) as never };
    },
    "servers.list": () => views(),
    "servers.upsert": async ({ name, previousName, entry }) => {
      const parsed = checked({ mcpServers: { [name]: entry } }).servers.get(name);
      if (!parsed) throw new ApiFailure("invalid", `server ${JSON.stringify(name)} is not valid`);
      const edit = keepMaskedSecrets(parsed, saved(previousName ?? name));
      await store.upsert(name, edit, previousName);
      return views();
    },
    "servers.remove": async ({ name }) => {
      await store.remove(name);
      return views();
    },
    "servers.restart": async ({ name }) => {
      const server = host.servers.get(name);
      if (!server) throw new ApiFailure("not_found", `no server named ${JSON.stringify(name)}`);
      await server.restart().catch(() => undefined);
      return views();
    },
    "servers.tools": ({ name }) => {
      store.entry(name);
      return tools(name);
    },
    "servers.setToolPolicy": async ({ name, tool, allowed, private: isPrivate }) => {
      await store.setToolPolicy(name, tool, { allowed, private: isPrivate });
      return tools(name);
    },
  };
}
