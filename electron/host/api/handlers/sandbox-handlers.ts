import type { ApiHandlers } from "../../../../shared/api/api-contract.js";
import type { SandboxSupervisor } from "../../sandbox/sandbox-supervisor.js";
import { ApiFailure } from "../../../../shared/api/api-failure.js";

/** What the sandbox handlers use: Docker, the image and its build. */
export type SandboxServices = Pick<
  SandboxSupervisor,
  "refresh" | "imageStatus" | "dockerView" | "startBuild" | "runtimes"
>;

export function sandboxHandlers(
  sandbox: SandboxServices,
): Pick<ApiHandlers, "docker.status" | "image.status" | "image.build" | "sandbox.runtimes"> {
  return {
    "docker.status": () => sandbox.refresh(),
    "image.status": () => sandbox.imageStatus(),
    "image.build": ({ baseFrom }) => {
      if (sandbox.dockerView().state !== "ready") {
        throw new ApiFailure(
          "unavailable",
          "No container engine is running, so the image cannot be built. Start yours (Docker, Podman, ...) and check again.",
        );
      }
      return { started: sandbox.startBuild(baseFrom) };
    },
    "sandbox.runtimes": async () => {
      const available = await sandbox.runtimes();
      return { available, gvisor: available?.includes("runsc") ?? false };
    },
  };
}
