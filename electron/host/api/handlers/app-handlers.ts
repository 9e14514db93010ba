import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { AppInfoView, SandboxPoolView } from "../../../../shared/api/api-views.js";

/** What the app handlers use: what the app says about itself, its pause switch, its description. */
export interface AppServices {
  status: { info(): AppInfoView; setPaused(paused: boolean): void; pool(): SandboxPoolView };
  engine: { description(): string };
}

export function appHandlers({
  status,
  engine,
}: AppServices): Pick<
  ApiHandlers,
  "app.info" | "app.description" | "app.setPaused" | "sandbox.pool"
> {
  return {
    "sandbox.pool": () => status.pool(),
    "app.info": () => status.info(),
    "app.description": () => ({ text: engine.description() }),
    "app.setPaused": ({ paused }) => {
      status.setPaused(paused);
      return status.info();
    },
  };
}
