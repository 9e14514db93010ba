import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { TaintView } from "../../../../shared/api/api-views.js";
import type { TaintRegistry } from "../../core/bridge/taint.js";
import { API_LIMITS } from "../../../../shared/limits.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";
import { pageOf } from "./list-page.js";

/** What the taint handlers use: the registry and its views. */
export interface TaintServices {
  taint: Pick<TaintRegistry, "reset">;
  taintViews(): TaintView[];
}

export function taintHandlers(
  host: TaintServices,
): Pick<ApiHandlers, "taint.list" | "taint.reset"> {
  return {
    "taint.list": (params) => pageOf(host.taintViews(), API_LIMITS.taintPageMaxLimit, params),
    "taint.reset": ({ client }) => {
      if (!host.taint.reset(client)) {
        throw new ApiFailure("not_found", `${client} is not in private-data mode`);
      }
      return pageOf(host.taintViews(), API_LIMITS.taintPageMaxLimit);
    },
  };
}
