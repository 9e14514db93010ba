import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import {
  ClaudeConfigError,
  claudeDesktopConfigPath,
  claudeDesktopServers,
  platformFacts,
} from "../clients/claude-desktop.js";
import { toolViews } from "../server-views.js";
import { editFromEntry, editsFromValue } from "../../servers/config/config-edits.js";
import { invalidConfig, type ConfigStore } from "../../servers/config/config-store.js";
import { importedWithEnvSecret } from "../../servers/config/imported-secrets.js";
import type { ServerSet } from "../../servers/server-set.js";
import type { Catalog } from "../../core/catalog/catalog-types.js";
import type { ServerView } from "../../../../shared/api/api-views.js";
import { lineAndColumn, scanJson } from "../../servers/config/json-scan.js";
import { duplicateIssue, validateServersConfig } from "../../servers/config/server-config.js";
import { entryToFile } from "../../servers/config/server-entry.js";
import type { ServersConfig } from "../../core/ports/server-config-types.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { serverPage } from "./list-page.js";
import { toolPage } from "./tool-page.js";

/**
 * The value of a config text the UI sent, read as the config file is: a server named twice is
 * refused, naming it (JSON.parse keeps the last without a word), a syntax error gets its line
 * and column in our words (V8's quote the text around it, which may hold a secret). With
 * `mcpServersOnly`, a text holding an mcpServers key (a client's whole config) is refused only
 * for keys named twice inside it: the rest is the client's own.
 */
function parseJson(text: string, what: string, mcpServersOnly = false): unknown {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const scan = scanJson(body, "mcpServers");
  if (!scan.ok) {
    const { line, column } = lineAndColumn(body, scan.position);
    throw new ApiFailure(
      "invalid",
      `${what} is not valid JSON at line ${line}, column ${column}: ${scan.message}`,
      [{ path: [], message: "not valid JSON" }],
    );
  }
  const value: unknown = JSON.parse(body);
  const wrapped = typeof value === "object" && value !== null && "mcpServers" in value;
  const duplicates =
    mcpServersOnly && wrapped
      ? scan.duplicates.filter((path) => path[0] === "mcpServers")
      : scan.duplicates;
  if (duplicates.length > 0) throw invalidConfig(duplicates.map(duplicateIssue));
  return value;
}

function fileEntries(config: ServersConfig) {
  return Object.fromEntries([...config.servers].map(([name, e]) => [name, entryToFile(e)]));
}

/** What the config handlers use: the store, the running servers, the catalog and the views. */
export interface ConfigServices {
  configStore: ConfigStore;
  servers: Pick<ServerSet, "get">;
  engine: { readonly catalog: Catalog };
  serverViews(): ServerView[];
}

export function configHandlers(
  host: ConfigServices,
  claudeConfigPath: () => string = () => claudeDesktopConfigPath(platformFacts()),
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
  | "servers.setAsk"
> {
  const store = host.configStore;
  // Every answer that changes the list carries its first page, never the whole list.
  const views = () => serverPage(host.serverViews());
  const tools = (name: string) =>
    toolViews(
      name,
      store.current.servers.get(name),
      host.servers.get(name)?.tools,
      host.engine.catalog,
    );

  return {
    "config.get": () => {
      // Secret values never leave the host: the text says which stored secret each one keeps,
      // and saving the text unchanged keeps them.
      const entries = Object.fromEntries(
        [...store.current.servers].map(([name, entry]) => {
          const file = entryToFile(entry);
          const env = Object.fromEntries(
            Object.entries(file.env).map(([key, value]) => [
              key,
              entry.secretEnv.includes(key) ? { storedSecret: key } : value,
            ]),
          );
          return [name, { ...file, env }];
        }),
      );
      return { json: JSON.stringify({ mcpServers: entries }, null, 2), servers: views() };
    },
    "config.save": async ({ json }) => {
      await store.replaceAll(editsFromValue(parseJson(json, "The config")), "config saved");
      return views();
    },
    "config.parseSnippet": ({ text }) => {
      const value = parseJson(text, "The pasted text", true);
      // People paste either a whole client config or just its mcpServers object. A whole
      // config (Claude Desktop's has globalShortcut, preferences, ...) is read for its
      // mcpServers alone: the rest is the client's own and no concern of ours.
      const wrapped =
        typeof value === "object" && value !== null && "mcpServers" in value
          ? { mcpServers: value.mcpServers }
          : { mcpServers: value };
      const checked = validateServersConfig(wrapped);
      if (!checked.ok) throw invalidConfig(checked.errors);
      // Saved as the UI gets them: env values copied from instructions are secret until unmarked.
      return { servers: importedWithEnvSecret(fileEntries(checked.config)) };
    },
    "config.claudeDesktopServers": async () => {
      const file = claudeConfigPath();
      // What is wrong with the user's file is theirs to fix, named as such: not a host fault.
      const found = await claudeDesktopServers(file).catch((error: unknown) => {
        if (error instanceof ClaudeConfigError) throw new ApiFailure("invalid", error.message);
        throw error;
      });
      const servers = importedWithEnvSecret(found);
      return { path: file, servers: servers as never };
    },
    "servers.list": (params) => serverPage(host.serverViews(), params),
    "servers.upsert": async ({ name, previousName, entry, addOnly }) => {
      await store.upsert(name, editFromEntry(name, entry), previousName, { addOnly });
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
    "servers.tools": ({ name, after, limit }) => {
      store.entry(name);
      return toolPage(tools(name), after, limit);
    },
    "servers.setToolPolicy": async ({ name, tool, allowed, private: isPrivate, ask, hideArgs }) => {
      await store.setToolPolicy(name, tool, { allowed, private: isPrivate, ask, hideArgs });
      // Only this tool changed; the whole list could pass the reply cap (see servers.tools).
      return tools(name).find((t) => t.name === tool) ?? null;
    },
    "servers.setAsk": async ({ name, ask }) => {
      await store.setServerAsk(name, ask);
      return views();
    },
  };
}
