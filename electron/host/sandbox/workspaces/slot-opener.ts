// Opening a slot to the host when the host is shut out of what a run left there: a short
// container of the sandbox's image, as the sandbox's user and with every limit of a run, gives
// the host back what that user made (containers/slot-open-script.ts). Only an engine that
// mounts this computer's folders is ever asked: a remote one would mount a folder of the same
// name on its own machine and change that instead.
import { randomBytes } from "node:crypto";
import type { SandboxRuntime } from "../../../../shared/settings.js";
import type { ContainerOwner } from "../containers/container-owner.js";
import type { SandboxEngine } from "../container-engine/sandbox-engine.js";

/** An opening container still running after this long is removed, and the opening failed. */
export const SLOT_OPEN_TIMEOUT_MS = 120_000;

/** Opens what the sandbox's user left under a host folder to the host. */
export type SlotOpener = (dir: string) => Promise<void>;

/** Whether a failure is the host being shut out of something (its permissions). */
export function shutOut(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "EACCES" || code === "EPERM";
}

/** The opener of slots on `engine`; null when the engine cannot mount this computer's folders. */
export function slotOpener(
  engine: SandboxEngine,
  image: string,
  owner: ContainerOwner,
  runtime: () => SandboxRuntime,
): SlotOpener | null {
  if (!engine.mountsHostFolders) return null;
  return async (dir) => {
    const container = await engine.createSandbox({
      ...{ image, owner, runtime: runtime(), preload: false },
      nonce: randomBytes(16).toString("hex"),
      slot: dir,
      openSlot: true,
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await container.start();
      const exit = await Promise.race([
        container.wait(),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), SLOT_OPEN_TIMEOUT_MS);
        }),
      ]);
      if (exit === null) throw new Error("opening a workspace slot took too long");
      if (exit.exitCode !== 0) throw new Error("a workspace slot could not be opened");
    } finally {
      clearTimeout(timer);
      await container.remove().catch(() => undefined);
    }
  };
}

/**
 * Runs `step` on something in a slot; once more after opening `dir` with `open` when the host
 * was shut out of it. When the opening fails too, the first failure is the one thrown (the
 * engine's words could name the host's folders).
 */
export async function withSlotOpened<T>(
  dir: string,
  open: SlotOpener | null | undefined,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!shutOut(error) || open == null) throw error;
    const opened = await open(dir).then(
      () => true,
      () => false,
    );
    if (!opened) throw error;
  }
  return step();
}
