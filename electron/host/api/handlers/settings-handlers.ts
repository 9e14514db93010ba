import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";

export function settingsHandlers(
  host: CodeModeHost,
): Pick<ApiHandlers, "settings.get" | "settings.save"> {
  return {
    "settings.get": () => host.settings,
    "settings.save": (patch) => host.saveSettings(patch),
  };
}
