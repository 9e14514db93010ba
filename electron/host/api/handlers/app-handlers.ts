import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";

export function appHandlers(
  host: CodeModeHost,
): Pick<ApiHandlers, "app.info" | "app.description" | "app.setPaused"> {
  return {
    "app.info": () => host.appInfo(),
    "app.description": () => ({ text: host.engine.description() }),
    "app.setPaused": ({ paused }) => {
      host.setPaused(paused);
      return host.appInfo();
    },
  };
}
