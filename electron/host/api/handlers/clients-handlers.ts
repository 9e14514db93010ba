import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { ClientView } from "../../../../shared/api/api-views.js";
import {
  applyClaudeDesktop,
  ClaudeConfigError,
  claudeDesktopConfigPath,
  platformFacts,
  previewClaudeDesktop,
} from "../clients/claude-desktop.js";
import { clientSnippets, type ShimLaunch } from "../clients/client-snippets.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { pageOf } from "./list-page.js";

function asApiFailure(error: unknown): never {
  if (error instanceof ClaudeConfigError) throw new ApiFailure("conflict", error.message);
  throw error;
}

/** What the clients handlers use: the sessions and how clients start this install's shim. */
export interface ClientsServices {
  /** The MCP clients connected now (the ingress layer keeps them). */
  sessions: { list(): ClientView[] };
  shimLaunch: ShimLaunch;
  /** The MCP-over-HTTP server while it is on. */
  mcpHttp: () => { readonly url: string; readonly bearerToken: string } | null;
}

export function clientsHandlers(
  { sessions, shimLaunch, mcpHttp }: ClientsServices,
  claudeConfigPath: () => string = () => claudeDesktopConfigPath(platformFacts()),
): Pick<
  ApiHandlers,
  | "clients.list"
  | "clients.snippets"
  | "clients.claudeDesktopPreview"
  | "clients.claudeDesktopApply"
> {
  return {
    "clients.list": (params) => pageOf(sessions.list(), API_LIMITS.clientsPageMaxLimit, params),
    "clients.snippets": () => {
      const http = mcpHttp();
      return clientSnippets(shimLaunch, http ? { url: http.url, token: http.bearerToken } : null);
    },
    "clients.claudeDesktopPreview": () =>
      previewClaudeDesktop(claudeConfigPath(), shimLaunch).catch(asApiFailure),
    "clients.claudeDesktopApply": ({ expectedBefore }) =>
      applyClaudeDesktop(claudeConfigPath(), shimLaunch, expectedBefore).catch(asApiFailure),
  };
}
