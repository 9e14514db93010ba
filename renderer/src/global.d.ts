import type { ApiClient } from "../../shared/api/api-contract.js";

declare global {
  interface Window {
    /** The typed API, exposed by the Electron preload through contextBridge. */
    codemode?: ApiClient;
  }
}

export {};
