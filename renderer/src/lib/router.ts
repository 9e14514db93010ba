// Client-side routing by the URL hash: `#/servers`, `#/servers?name=notes`, `#/audit?run=...`.
import { useSyncExternalStore } from "react";

export type PageId = "first-run" | "servers" | "sandbox" | "clients" | "audit";

export const PAGE_IDS: readonly PageId[] = ["first-run", "servers", "sandbox", "clients", "audit"];

export interface Route {
  /** Null when the hash names no page (first start, or an unknown link). */
  page: PageId | null;
  params: URLSearchParams;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  window.addEventListener("popstate", onChange);
  return () => {
    window.removeEventListener("hashchange", onChange);
    window.removeEventListener("popstate", onChange);
  };
}

function getHash(): string {
  return window.location.hash;
}

/** A loop, not /\/+$/: that regex is quadratic on a long run of slashes not at the end. */
function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const q = raw.indexOf("?");
  const path = trimTrailingSlashes(q === -1 ? raw : raw.slice(0, q));
  const params = new URLSearchParams(q === -1 ? "" : raw.slice(q + 1));
  const page = (PAGE_IDS as readonly string[]).includes(path) ? (path as PageId) : null;
  return { page, params };
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, getHash);
  return parseHash(hash);
}

export function hrefFor(page: PageId, params?: Record<string, string | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== null && value !== undefined && value !== "") search.set(key, value);
  }
  const query = search.toString();
  return `#/${page}${query ? `?${query}` : ""}`;
}

/** Goes to a page; `replace` keeps the browser history from growing (for selection changes). */
export function navigate(
  page: PageId,
  params?: Record<string, string | null | undefined>,
  options: { replace?: boolean } = {},
): void {
  const href = hrefFor(page, params);
  if (window.location.hash === href) return;
  if (options.replace) {
    window.history.replaceState(null, "", href);
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  } else {
    window.location.hash = href;
  }
}
