import type { ApiClient } from "../../shared/api/api-contract.js";
import type { DesktopAuditExporter } from "../../shared/api/audit-export.js";
import type { PathPicker } from "../../shared/api/path-picker.js";

declare global {
  interface Window {
    /** The typed API, exposed by the Electron preload through contextBridge. */
    codemode?: ApiClient;
    /**
     * The OS folder and file picker and the save-dialog export, exposed by the Electron
     * preload (not in a browser).
     */
    codemodeDesktop?: PathPicker & DesktopAuditExporter;
  }
}

export {};
