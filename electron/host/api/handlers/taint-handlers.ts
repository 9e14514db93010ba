import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { ApiFailure } from "../api-failure.js";

export function taintHandlers(host: CodeModeHost): Pick<ApiHandlers, "taint.list" | "taint.reset"> {
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
