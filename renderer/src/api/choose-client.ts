// Which transport the UI uses: the Electron preload's IPC client when it is there, else the
// loopback WebSocket of browser mode, authenticated with the token from the page link.
import type { ApiClient } from "../../../shared/api/api-contract.js";
import { createWsClient, type ConnectedApiClient } from "./ws-client.js";

export const TOKEN_STORAGE_KEY = "codemode.token";

export type ChosenClient =
  | { mode: "electron"; client: ApiClient }
  | { mode: "browser"; client: ConnectedApiClient }
  | { mode: "no-token"; client: null };

/**
 * Reads `#token=...` from the page URL (the daemon opens the UI with it), keeps it in
 * sessionStorage so a reload still works, and removes it from the visible URL.
 */
export function takeTokenFromUrl(): string | null {
  const hash = window.location.hash.replace(/^#/, "");
  let token: string | null = null;
  if (hash.startsWith("token=") || hash.includes("&token=") || hash.includes("?token=")) {
    const query = hash.includes("?") ? hash.slice(hash.indexOf("?") + 1) : hash;
    token = new URLSearchParams(query).get("token");
  }
  if (token) {
    try {
      sessionStorage.setItem(TOKEN_STORAGE_KEY, token);
    } catch {
      // Storage can be disabled; the token still works for this page load.
    }
    const { pathname, search } = window.location;
    window.history.replaceState(null, "", `${pathname}${search}`);
    return token;
  }
  try {
    return sessionStorage.getItem(TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function wsUrlForPage(): string {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}/api`;
}

export function chooseClient(): ChosenClient {
  if (window.codemode) return { mode: "electron", client: window.codemode };
  const token = takeTokenFromUrl();
  if (!token) return { mode: "no-token", client: null };
  return { mode: "browser", client: createWsClient(wsUrlForPage(), token) };
}
