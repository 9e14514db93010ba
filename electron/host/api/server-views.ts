import type {
  LeftOutReason,
  ServerView,
  TaintView,
  ToolView,
} from "../../../shared/api/api-views.js";
import type { TaintRegistry } from "../core/bridge/taint.js";
import type { Catalog, DiscoveredTool } from "../core/catalog/catalog-types.js";
import type { ServerEntry, ServersConfig } from "../core/ports/server-config-types.js";
import type { ServerSet } from "../servers/server-set.js";
import { configSecrets, maskSecrets } from "../core/secrets/secret-mask.js";
import { asksFirst } from "../core/approvals/ask-policy.js";
import { hidesArgs } from "../audit/args-policy.js";

/** How a secret value is shown: enough to recognise it, never enough to use it. */
export function maskSecret(value: string): string {
  return value.length <= 4 ? "••••" : `••••${value.slice(-2)}`;
}

export function serverViews(
  servers: ServerSet,
  config: ServersConfig,
  heldCount: (server: string) => number = () => 0,
): ServerView[] {
  // A server's own stderr and errors often echo the key it was given.
  const secrets = configSecrets(config);
  const scrub = (text: string): string => maskSecrets(text, secrets);
  return [...config.servers].map(([name, entry]) => {
    const live = servers.get(name);
    const info = live?.info;
    return {
      name,
      command: entry.command,
      args: entry.args,
      env: Object.entries(entry.env).map(([key, value]) => {
        const secret = entry.secretEnv.includes(key);
        return { name: key, value: secret ? maskSecret(value) : value, secret };
      }),
      allow: entry.allow,
      private: entry.private,
      ask: entry.ask ?? false,
      status: info?.status ?? "stopped",
      lastError: info?.lastError == null ? null : scrub(info.lastError),
      stderrTail: live ? live.stderrTail.map(scrub) : [],
      restarting: info?.restarting ?? false,
      toolCount: live?.tools.length ?? 0,
      held: heldCount(name),
    };
  });
}

/** The tools server `name` lists (none while it is not running), as the UI shows them. */
export function toolViews(
  name: string,
  entry: ServerEntry | undefined,
  listed: readonly DiscoveredTool[] | undefined,
  catalog: Catalog,
): ToolView[] {
  if (!entry || !listed) return [];
  // Looked up by name, not searched per tool: a server may list thousands of tools, and each
  // page of servers.tools builds these views again.
  const inCatalogByName = new Map(
    catalog.tools.filter((t) => t.server === name).map((t) => [t.tool, t]),
  );
  const leftOutByName = new Map(
    catalog.leftOut.filter((t) => t.server === name).map((t) => [t.tool, t]),
  );
  return listed.map((tool) => {
    const inCatalog = inCatalogByName.get(tool.name);
    const allowed = entry.allow === null || entry.allow.includes(tool.name);
    const isPrivate =
      entry.private === true || (Array.isArray(entry.private) && entry.private.includes(tool.name));
    const left = leftOutByName.get(tool.name);
    return {
      server: name,
      name: tool.name,
      pyName: inCatalog?.pyName ?? null,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      allowed,
      private: isPrivate,
      ask: asksFirst(entry, tool.name),
      hideArgs: hidesArgs(entry, tool.name),
      leftOut: inCatalog ? null : leftOutReason(allowed, left?.reason),
    };
  });
}

function leftOutReason(allowed: boolean, fromCatalog: LeftOutReason | undefined): LeftOutReason {
  if (!allowed) return { code: "not_allowed", text: "switched off: not on the allow list" };
  return fromCatalog ?? { code: "not_in_catalog", text: "not in the catalog" };
}

/** The clients in private-data mode, and the tool that put each there. */
export function taintViews(taint: Pick<TaintRegistry, "list">): TaintView[] {
  return taint.list().map((record) => ({
    client: record.client,
    server: record.server,
    tool: record.tool,
    pyName: record.pyName,
    at: record.at.toISOString(),
  }));
}
