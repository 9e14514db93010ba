import { z } from "zod";
import { HOST_LIMITS } from "../../../../shared/limits.js";

/** The `_meta` of a tools/call as the client sent it: only a well-formed token is used. */
const progressMeta = z.object({ progressToken: z.union([z.string(), z.number()]) });

export interface ProgressSink {
  sendNotification(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/**
 * Sends `notifications/progress` every `intervalMs` while a run goes, when the request asked
 * for progress (its `_meta.progressToken`). A client that resets its request timeout on
 * progress (the SDK's `resetTimeoutOnProgress`) then waits for a run longer than that
 * timeout instead of cancelling it. Returns the stopper; without a token it does nothing.
 */
export function startRunProgress(
  meta: unknown,
  sink: ProgressSink,
  intervalMs: number = HOST_LIMITS.runProgressIntervalMs,
): () => void {
  const parsed = progressMeta.safeParse(meta);
  if (!parsed.success) return () => undefined;
  const { progressToken } = parsed.data;
  const started = Date.now();
  let ticks = 0;
  const timer = setInterval(() => {
    // Progress must grow with every notification: the tick count does, whatever the clock.
    ticks += 1;
    const seconds = Math.round((Date.now() - started) / 1000);
    void sink
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress: ticks, message: `running for ${seconds} s` },
      })
      .catch(() => undefined);
  }, intervalMs);
  return () => clearInterval(timer);
}
