import type { ApiHandlers } from "../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../app/code-mode-host.js";
import { appHandlers } from "./handlers/app-handlers.js";
import { auditHandlers } from "./handlers/audit-handlers.js";
import { bundleHandlers } from "./handlers/bundle-handlers.js";
import { clientsHandlers } from "./handlers/clients-handlers.js";
import { configHandlers } from "./handlers/config-handlers.js";
import { sandboxHandlers } from "./handlers/sandbox-handlers.js";
import { settingsHandlers } from "./handlers/settings-handlers.js";
import { taintHandlers } from "./handlers/taint-handlers.js";
import { tryHandlers } from "./handlers/try-handlers.js";

/** Every channel of the contract, one file per domain; the type makes a missing one an error. */
export function buildApiHandlers(host: CodeModeHost): ApiHandlers {
  return {
    ...appHandlers(host),
    ...sandboxHandlers(host),
    ...configHandlers(host, host.options.claudeDesktopConfigPath),
    ...clientsHandlers(host, host.options.claudeDesktopConfigPath),
    ...taintHandlers(host),
    ...settingsHandlers(host),
    ...auditHandlers(host),
    ...tryHandlers(host),
    ...bundleHandlers(host),
  };
}
