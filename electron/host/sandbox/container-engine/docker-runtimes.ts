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

/**
 * Why runs are refused on an engine that lacks the saved runtime, for the Sandbox page; null
 * when it has it, or cannot say which it has (an engine that cannot say is not blamed).
 */
export async function savedRuntimeProblem(
  docker: Dockerode,
  runtime: SandboxRuntime,
): Promise<string | null> {
  const available = runtime === "runc" ? null : await engineRuntimes(docker).catch(() => null);
  const missing = available === null ? null : missingRuntimeMessage(runtime, available);
  return missing === null
    ? null
    : `Code Mode cannot run code: the saved sandbox runtime is "${runtime}", but ${missing} ` +
        `To run code with the standard runtime, choose runc on the Sandbox page.`;
}
