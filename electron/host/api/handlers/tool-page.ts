// One page of a server's tools for servers.tools. A hostile (or just large) server may list
// tools whose schemas and descriptions together pass the API's reply cap; served in pages, the
// UI still gets every one of them instead of a too_large error.
import type { ToolView } from "../../../../shared/api/api-views.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { listPage } from "./list-page.js";
import { MiB } from "../../util/units.js";

/**
 * servers.tools: a page also ends once its tools pass this size as JSON, so a server's long
 * list reaches the UI in pages, each well under responseMaxChars (unless one tool alone is).
 */
export const TOOLS_PAGE_MAX_CHARS = 4 * MiB;

export interface ToolPage {
  tools: ToolView[];
  /** Index the next page starts at; null when this page ends the list. */
  next: number | null;
}

/**
 * The tools from index `after`, at most `limit` of them, and ending once their JSON passes
 * `maxChars` (a page always holds at least one tool, so the list always advances).
 */
export function toolPage(
  all: readonly ToolView[],
  after = 0,
  limit: number = API_LIMITS.toolsPageMaxLimit,
  maxChars: number = TOOLS_PAGE_MAX_CHARS,
): ToolPage {
  const { items, next } = listPage(all, after, limit, maxChars);
  return { tools: items, next };
}
