// Which container runtimes the engine offers (`docker info` → Runtimes), and the check that a
// chosen sandbox runtime is one of them: a runtime the engine lacks fails every container
// create with a terse Docker error, so it is refused up front with the list the engine has.
import type Dockerode from "dockerode";
import type { SandboxRuntime } from "../../../../shared/settings.js";

/** The runtimes the engine names, sorted; an engine that names none offers runc only. */
export async function engineRuntimes(docker: Dockerode): Promise<string[]> {
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> | null };
  const names = Object.keys(info.Runtimes ?? {});
  return names.length === 0 ? ["runc"] : names.sort();
}

/** Null when the engine has the runtime, else the message saying which ones it has. */
export function missingRuntimeMessage(
  runtime: SandboxRuntime,
  available: readonly string[],
): string | null {
  if (available.includes(runtime)) return null;
  const advice =
    runtime === "runsc"
      ? " Install gVisor and register runsc with Docker (see the Sandbox page), or choose runc."
      : "";
  return `the Docker engine has no runtime "${runtime}"; it has: ${available.join(", ")}.${advice}`;
}

/** Throws with missingRuntimeMessage when the engine lacks the runtime. */
export async function requireRuntime(docker: Dockerode, runtime: SandboxRuntime): Promise<void> {
  const message = missingRuntimeMessage(runtime, await engineRuntimes(docker));
  if (message !== null) throw new Error(message);
}
