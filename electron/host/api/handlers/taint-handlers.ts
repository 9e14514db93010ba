import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { TaintView } from "../../../../shared/api/api-views.js";
import type { TaintRegistry } from "../../bridge/taint.js";
import { ApiFailure } from "../api-failure.js";

/** What the taint handlers use: the registry and its views. */
export interface TaintServices {
  taint: Pick<TaintRegistry, "reset">;
  taintViews(): TaintView[];
}

export function taintHandlers(
  host: TaintServices,
): Pick<ApiHandlers, "taint.list" | "taint.reset"> {
  return {
    "taint.list": () => host.taintViews(),
    "taint.reset": ({ client }) => {
      if (!host.taint.reset(client)) {
        throw new ApiFailure("not_found", `${client} is not in private-data mode`);
      }
      return host.taintViews();
    },
  };
}
