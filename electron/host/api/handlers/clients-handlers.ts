import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import {
  applyClaudeDesktop,
  ClaudeConfigError,
  claudeDesktopConfigPath,
  platformFacts,
  previewClaudeDesktop,
} from "../../clients/claude-desktop.js";
import { clientSnippets } from "../../clients/client-snippets.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { ApiFailure } from "../api-failure.js";

function asApiFailure(error: unknown): never {
  if (error instanceof ClaudeConfigError) throw new ApiFailure("conflict", error.message);
  throw error;
}

export function clientsHandlers(
  host: CodeModeHost,
  claudeConfigPath: () => string = () => claudeDesktopConfigPath(platformFacts()),
): Pick<
  ApiHandlers,
  | "clients.list"
  | "clients.snippets"
  | "clients.claudeDesktopPreview"
  | "clients.claudeDesktopApply"
> {
  return {
    "clients.list": () => host.sessions.list(),
    "clients.snippets": () => {
      const http = host.mcpHttp;
      return clientSnippets(
        host.options.shimLaunch,
        http ? { url: http.url, token: http.bearerToken } : null,
      );
    },
    "clients.claudeDesktopPreview": () =>
      previewClaudeDesktop(claudeConfigPath(), host.options.shimLaunch).catch(asApiFailure),
    "clients.claudeDesktopApply": ({ expectedBefore }) =>
      applyClaudeDesktop(claudeConfigPath(), host.options.shimLaunch, expectedBefore).catch(
        asApiFailure,
      ),
  };
}
