// What a run with a workspace leaves to do once it is answered: wait for its container to stop,
// keep what the slot holds then, and remove the container. The run is answered as soon as its
// code has ended, but a thread or a process the code left (or code that wrote a `done` line of
// its own) may write to the slot until the container stops: only then is nothing left that
// can, and only then is the slot kept (scanned again: workspace-keep.ts). The sandbox tracks
// this like a removal, so close() waits for it; the workspace stays held until it is done.
import type { WorkspaceChecked, WorkspaceSlot } from "../../core/ports/run-types.js";
import type { SandboxContainer } from "../containers/sandbox-container.js";
import type { WorkspaceWatch } from "./workspace-run.js";

/** How long a run's container is given to stop on its own before it is removed. */
export const CONTAINER_STOP_WAIT_MS = 2_000;

/**
 * Resolves true once nothing in the container can write to the slot any more. The runner ends
 * a finished run by exiting, and as the container's first process its exit takes every other
 * process of the container with it: waiting for that stop is enough, and much quicker than a
 * removal. A container still running after CONTAINER_STOP_WAIT_MS is removed; false when even
 * that failed (the engine away): then nothing the run left may be kept.
 */
export async function containerStopped(
  container: Pick<SandboxContainer, "stopped" | "remove">,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    container.stopped().catch(() => false),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), CONTAINER_STOP_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (stopped) return true;
  return container.remove().then(
    () => true,
    () => false,
  );
}

/**
 * After the answer: the slot's size watch goes on until the container has stopped, and a slot
 * past its limits has the container removed at once (nothing of such a run is kept, and it must
 * not fill the disk meanwhile); then `keep`, if there is one; then the container's removal.
 */
export async function keepAfterStop(
  container: Pick<SandboxContainer, "stopped" | "remove">,
  slot: WorkspaceSlot,
  keep: WorkspaceChecked["keep"],
  watch: Pick<WorkspaceWatch, "past" | "stop"> | null,
): Promise<void> {
  const removeNow = (): void => void container.remove().catch(() => undefined);
  if (watch?.past.aborted) removeNow();
  watch?.past.addEventListener("abort", removeNow, { once: true });
  try {
    if (keep !== null) await keep(slot, await containerStopped(container));
  } finally {
    watch?.past.removeEventListener("abort", removeNow);
    watch?.stop();
    await container.remove();
  }
}
