import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import { appHandlers, type AppServices } from "./app-handlers.js";
import { approvalHandlers, type ApprovalServices } from "./approval-handlers.js";
import { auditHandlers, type AuditServices, type RunImageLookup } from "./audit-handlers.js";
import { bundleHandlers, type BundleServices } from "./bundle-handlers.js";
import { clientsHandlers, type ClientsServices } from "./clients-handlers.js";
import { configHandlers, type ConfigServices } from "./config-handlers.js";
import { pinHandlers, type PinServices } from "./pin-handlers.js";
import { sandboxHandlers, type SandboxServices } from "./sandbox-handlers.js";
import { settingsHandlers, type SettingsServices } from "./settings-handlers.js";
import { taintHandlers, type TaintServices } from "./taint-handlers.js";
import { tryHandlers, type TryServices } from "./try-handlers.js";
import { workspaceHandlers, type WorkspaceServices } from "./workspace-handlers.js";

/** The services the API reaches, each handler group given only the ones it uses. */
export interface ApiServices extends AppServices, ClientsServices {
  sandbox: SandboxServices;
  config: ConfigServices;
  taint: TaintServices;
  settings: SettingsServices;
  audit: AuditServices;
  /** Recent runs' images in memory, shown in the Audit page's run detail. */
  runImages?: RunImageLookup | undefined;
  bundles: BundleServices;
  try: TryServices;
  approvals: ApprovalServices;
  /** Pinned tool definitions: held changes and their review. */
  pins: PinServices;
  /** The clients' workspaces and the files runs attached. */
  workspaces: WorkspaceServices;
  /** Where Claude Desktop's config is (tests point it at a temporary file). */
  claudeDesktopConfigPath?: (() => string) | undefined;
}

/** Every channel of the contract, one file per domain; the type makes a missing one an error. */
export function buildApiHandlers(services: ApiServices): ApiHandlers {
  return {
    ...appHandlers(services),
    ...sandboxHandlers(services.sandbox),
    ...configHandlers(services.config, services.claudeDesktopConfigPath),
    ...clientsHandlers(services, services.claudeDesktopConfigPath),
    ...taintHandlers(services.taint),
    ...settingsHandlers(services.settings),
    ...auditHandlers(services.audit, services.runImages),
    ...bundleHandlers(services.bundles),
    ...workspaceHandlers(services.workspaces),
    // These handlers serve the app's own window; the browser UI swaps in its own (ui-server).
    ...tryHandlers(services.try, "app"),
    ...approvalHandlers(services.approvals, "app"),
    ...pinHandlers(services.pins, "app"),
  };
}
