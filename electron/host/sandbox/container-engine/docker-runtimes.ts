// Which container runtimes the engine offers (`docker info` → Runtimes), and the check that a
// chosen sandbox runtime is one of them: a runtime the engine lacks fails every container
// create with a terse Docker error, so it is refused up front with the list the engine has.
import type Dockerode from "dockerode";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import { engineFlavour } from "./engine-flavour.js";
import { podmanRuntimes, type EngineInfoRuntimes } from "./podman-quirks.js";

/** The runtimes the engine names, sorted; an engine that names none offers runc only. */
export async function engineRuntimes(docker: Dockerode): Promise<string[]> {
  const info = (await docker.info()) as EngineInfoRuntimes;
  const flavour = await engineFlavour(docker).catch(() => null);
  if (flavour?.product === "podman") return podmanRuntimes(info);
  const names = Object.keys(info.Runtimes ?? {});
  return names.length === 0 ? ["runc"] : names.sort();
}

/** The engine as the runtime messages name it: what it is and where. */
export interface EngineNamed {
  /** "Docker", "Podman". */
  product: string;
  endpoint: string;
}

/** How a runtime is added to the engine: each product has its own way. */
function runtimeAdvice(runtime: SandboxRuntime, engine: EngineNamed): string {
  if (runtime !== "runsc") return "";
  if (engine.product === "Podman") {
    return ' Install gVisor and make runsc Podman\'s default runtime (runtime = "runsc" in containers.conf: Podman runs every container under its default runtime), or choose runc.';
  }
  return ` Install gVisor and register runsc with ${engine.product} (see the Sandbox page), or choose runc.`;
}

/** Null when the engine has the runtime, else the message naming the engine and the runtimes it has. */
export function missingRuntimeMessage(
  runtime: SandboxRuntime,
  available: readonly string[],
  engine: EngineNamed,
): string | null {
  if (available.includes(runtime)) return null;
  return `the ${engine.product} engine at ${engine.endpoint} has no runtime "${runtime}"; it has: ${available.join(", ")}.${runtimeAdvice(runtime, engine)}`;
}

/** Throws with missingRuntimeMessage when the engine lacks the runtime. */
export async function requireRuntime(
  engine: EngineNamed & { runtimes(): Promise<string[]> },
  runtime: SandboxRuntime,
): Promise<void> {
  const message = missingRuntimeMessage(runtime, await engine.runtimes(), engine);
  if (message !== null) throw new Error(message);
}

/** Throws saying why when `available` (null: no engine answers) lacks the runtime. */
export function checkRuntimeIn(
  runtime: SandboxRuntime,
  available: readonly string[] | null,
  engine: EngineNamed | null,
): void {
  if (available === null || engine === null) {
    throw new Error(
      `the container engine is not reachable, so whether it has "${runtime}" cannot be checked`,
    );
  }
  const message = missingRuntimeMessage(runtime, available, engine);
  if (message !== null) throw new Error(message);
}

/** Why runs are refused while the engine (null: cannot say) lacks the saved runtime; else null. */
export function savedRuntimeProblem(
  runtime: SandboxRuntime,
  available: readonly string[] | null,
  engine: EngineNamed,
): string | null {
  const missing = available === null ? null : missingRuntimeMessage(runtime, available, engine);
  return missing === null
    ? null
    : `Code Mode cannot run code: the saved sandbox runtime is "${runtime}", but ${missing} ` +
        `To run code with the standard runtime, choose runc on the Sandbox page.`;
}
