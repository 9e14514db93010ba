import type { ApiClient } from "../../shared/api/api-contract.js";
import type { PathPicker } from "../../shared/api/path-picker.js";

declare global {
  interface Window {
    /** The typed API, exposed by the Electron preload through contextBridge. */
    codemode?: ApiClient;
    /** The OS folder and file picker, exposed by the Electron preload (not in a browser). */
    codemodeDesktop?: PathPicker;
  }
}

export {};
