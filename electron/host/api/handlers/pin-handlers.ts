// Held tool definitions: the list to review, and the review itself.
import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { HeldToolView } from "../../../../shared/api/api-views.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import type { Reviewer, ToolPins } from "../../servers/pins/tool-pins.js";
import { staleMessage } from "../../servers/pins/seen-definitions.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { listPage } from "./list-page.js";
import { MiB } from "../../util/units.js";

/** servers.held: a page also ends once its held tools (two definitions each) pass this. */
export const HELD_PAGE_MAX_CHARS = 4 * MiB;

export type PinServices = Pick<ToolPins, "heldViews" | "review">;

/**
 * `by` is the face the handlers serve (the app's IPC, the browser's WebSocket), so the log
 * says where a review came from without trusting the page. A review rebuilds the catalog and
 * emits servers.changed (the pins' `changed` callback, wired by the host).
 */
export function pinHandlers(
  pins: PinServices,
  by: Extract<Reviewer, "app" | "browser">,
): Pick<ApiHandlers, "servers.held" | "servers.review"> {
  return {
    "servers.held": ({ name, after, limit }) => {
      const page = listPage<HeldToolView>(
        pins.heldViews(name),
        after ?? 0,
        limit ?? API_LIMITS.heldPageMaxLimit,
        HELD_PAGE_MAX_CHARS,
      );
      return { held: page.items, next: page.next };
    },
    "servers.review": async ({ name, tools, decision }) => {
      const { reviewed, stale } = await pins.review(name, tools, decision, by);
      // The page reloads the held tools on this answer and shows the new definition.
      if (stale.length > 0) throw new ApiFailure("conflict", staleMessage(name, stale, decision));
      if (reviewed.length === 0) {
        const what =
          tools.length === 1 ? `no tool ${JSON.stringify(tools[0]?.tool)}` : "none of these tools";
        throw new ApiFailure(
          "not_found",
          `server ${JSON.stringify(name)} has ${what} held for review`,
        );
      }
      return { reviewed: reviewed.length };
    },
  };
}
