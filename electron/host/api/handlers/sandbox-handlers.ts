import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { CodeModeHost } from "../../app/code-mode-host.js";
import { ApiFailure } from "../api-failure.js";

export function sandboxHandlers(
  host: CodeModeHost,
): Pick<ApiHandlers, "docker.status" | "image.status" | "image.build"> {
  return {
    "docker.status": () => host.sandbox.refresh(),
    "image.status": () => host.sandbox.imageStatus(),
    "image.build": () => {
      if (host.sandbox.dockerView().state !== "ready") {
        throw new ApiFailure(
          "unavailable",
          "Docker is not running, so the image cannot be built. Start Docker and check again.",
        );
      }
      return { started: host.sandbox.startBuild() };
    },
  };
}
