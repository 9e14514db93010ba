// One page of a list the UI asks for in pages (servers, clients, private-data mode, a server's
// tools). A list can grow past what one API reply may carry (thousands of servers, each with
// long args and a stderr tail); served in pages, each answer and each changed event stays
// bounded, and the UI asks for the rest when it needs it.
import type { ListPage, ServerPage, ServerView } from "../../../../shared/api/api-views.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { jsonLengthUpTo } from "../json-size.js";
import { MiB } from "../../util/units.js";

/**
 * servers.list, clients.list, taint.list: a page also ends once its items pass this size as
 * JSON (a server's args and stderr tail can be long), well under responseMaxChars.
 */
export const LIST_PAGE_MAX_CHARS = 4 * MiB;

/**
 * The items from index `after`, at most `limit` of them, ending once their JSON passes
 * `maxChars` (a page always holds at least one item, so the list always advances).
 */
export function listPage<T>(
  all: readonly T[],
  after: number,
  limit: number,
  maxChars: number,
): ListPage<T> {
  const items: T[] = [];
  let chars = 0;
  let index = after;
  while (index < all.length && items.length < limit && chars < maxChars) {
    const item = all[index] as T;
    // Counted only up to what is left of the budget: a huge item is not walked whole.
    chars += jsonLengthUpTo(item, maxChars - chars + 1) + 1;
    items.push(item);
    index += 1;
  }
  return { items, total: all.length, next: index < all.length ? index : null };
}

/** Where a page starts and how long it may be, as servers.list, clients.list, taint.list take. */
export interface PageParams {
  after?: number | undefined;
  limit?: number | undefined;
}

/** A page of the server list, with how many of all of them failed and how many tools are held. */
export function serverPage(
  all: readonly ServerView[],
  params: PageParams = {},
  maxChars: number = LIST_PAGE_MAX_CHARS,
): ServerPage {
  const failed = all.reduce((n, s) => (s.status === "failed" ? n + 1 : n), 0);
  const held = all.reduce((n, s) => n + s.held, 0);
  return { ...pageOf(all, API_LIMITS.serversPageMaxLimit, params, maxChars), failed, held };
}

/** A page of a list capped by `maxLimit` (the default limit too) and LIST_PAGE_MAX_CHARS. */
export function pageOf<T>(
  all: readonly T[],
  maxLimit: number,
  { after = 0, limit = maxLimit }: PageParams = {},
  maxChars: number = LIST_PAGE_MAX_CHARS,
): ListPage<T> {
  return listPage(all, after, Math.min(limit, maxLimit), maxChars);
}
