// Which transport the UI uses: the Electron preload's IPC client when it is there, else the
// loopback WebSocket of browser mode, signed in with the one-time ticket of the page's link
// and from then on with the session the host gave for it.
import type { ApiClient } from "../../../shared/api/api-contract.js";
import type { WsCredential } from "../../../shared/api/ws-protocol.js";
import { createWsClient, type ConnectedApiClient } from "./ws-client.js";

/** The tab's session: sessionStorage, so a reload stays signed in and another tab does not. */
export const SESSION_STORAGE_KEY = "codemode.session";

export type ChosenClient =
  | { mode: "electron"; client: ApiClient }
  | { mode: "browser"; client: ConnectedApiClient }
  | { mode: "no-link"; client: null };

/** The value of `name=` in the page's fragment (`#ticket=...`), if it has one. */
function fromHash(hash: string, name: string): string | null {
  const text = hash.replace(/^#/, "");
  const query = text.includes("?") ? text.slice(text.indexOf("?") + 1) : text;
  return new URLSearchParams(query).get(name);
}

/**
 * Reads `#ticket=...` from the page URL (the link Code Mode opens), and takes it out of the
 * visible URL and the history entry at once; else the session this tab signed in with before.
 * A `#token=` of older links is taken out too: no key of that kind is accepted any more.
 */
export function takeCredentialFromUrl(): WsCredential | null {
  const ticket = fromHash(window.location.hash, "ticket");
  if (ticket !== null || fromHash(window.location.hash, "token") !== null) {
    const { pathname, search } = window.location;
    window.history.replaceState(null, "", `${pathname}${search}`);
  }
  if (ticket) return { ticket };
  try {
    const session = sessionStorage.getItem(SESSION_STORAGE_KEY);
    return session ? { session } : null;
  } catch {
    return null;
  }
}

/** Keeps the session the host gave for this tab's ticket, for reloads. */
function keepSession(session: string): void {
  try {
    sessionStorage.setItem(SESSION_STORAGE_KEY, session);
  } catch {
    // Storage can be disabled; the session still works until the page is reloaded.
  }
}

export function wsUrlForPage(): string {
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${window.location.host}/api`;
}

export function chooseClient(): ChosenClient {
  if (window.codemode) return { mode: "electron", client: window.codemode };
  const credential = takeCredentialFromUrl();
  if (!credential) return { mode: "no-link", client: null };
  return {
    mode: "browser",
    client: createWsClient(wsUrlForPage(), credential, { onSession: keepSession }),
  };
}
