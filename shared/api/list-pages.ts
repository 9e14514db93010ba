// The further pages of a list the host serves in pages (servers.list, clients.list,
// taint.list): the UI shows the first page, kept live by the list's changed event, and asks
// for more here when the user wants them, or to refresh the ones it already shows.
import type { ApiError, ApiResponse } from "./api-contract.js";
import type { ListPage } from "./api-views.js";

export type PageRequest<T> = (params: { after: number }) => Promise<ApiResponse<ListPage<T>>>;

/** What came after `after`: the items, and where the page after them starts (null at the end). */
export interface MoreItems<T> {
  items: T[];
  next: number | null;
}

/**
 * Pages from `after` on, until at least `want` items came or the list ended; the first error
 * a page got ends it. A page always holds at least one item, so `want` bounds the requests.
 */
export async function pagesFrom<T>(
  request: PageRequest<T>,
  after: number,
  want: number,
): Promise<ApiResponse<MoreItems<T>>> {
  const items: T[] = [];
  let at = after;
  while (items.length < want) {
    const page = await request({ after: at });
    if (!page.ok) return page;
    items.push(...page.value.items);
    if (page.value.next === null) return { ok: true, value: { items, next: null } };
    // A cursor that does not move on would ask for the same page forever.
    if (page.value.next <= at) return { ok: false, error: stuck(at) };
    at = page.value.next;
  }
  return { ok: true, value: { items, next: at } };
}

function stuck(after: number): ApiError {
  return { code: "internal", message: `the list did not move past item ${after}` };
}
