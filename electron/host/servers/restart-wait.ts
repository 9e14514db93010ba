// A call made while its server restarts after a crash: it waits for the restart within its
// own timeout rather than failing at once.

import {
  WrappedServerError,
  abortedError,
  closedError,
  type CallOptions,
} from "./wrapped-server-types.js";

/**
 * A call waiting for a restart gives up this long before its timeout: the bridge's own timer
 * of the same length would otherwise end it first as a bare timeout, and the server's last
 * error (what the user needs) would never reach the log.
 */
export const RESTART_WAIT_RESERVE_MS = 250;

/** What the wait needs to see of the server. */
export interface RestartingServer {
  readonly name: string;
  isClosed(): boolean;
  /** Crashed and not back yet. */
  isRestarting(): boolean;
  lastError(): string | null;
  /** Subscribes to status changes; returns the function that unsubscribes. */
  onStatus(listener: () => void): () => void;
}

/**
 * Waits until the server is back (or closed, or no longer restarting by itself). Past the
 * call's timeout it fails with the server's last error: the one case a caller is told.
 */
export async function waitForRestart(
  server: RestartingServer,
  tool: string,
  options: CallOptions,
): Promise<void> {
  const { signal } = options;
  // Ends a little before the call's timeout: a caller timing the call itself (the bridge)
  // would otherwise cut it first, and its "timed out" would hide the server's last error.
  const timeoutMs = Math.max(1, options.timeoutMs - RESTART_WAIT_RESERVE_MS);
  let timedOut = false;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      offStatus();
      cancelTimer();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const offStatus = server.onStatus(() => {
      if (server.isClosed() || !server.isRestarting()) done();
    });
    // A real timer, as the SDK's own request timeout is: the injectable clock is for the
    // restart backoff.
    const timer = setTimeout(() => {
      timedOut = true;
      done();
    }, timeoutMs);
    const cancelTimer = (): void => clearTimeout(timer);
    signal.addEventListener("abort", done, { once: true });
    // The state may have changed between the caller's check and now.
    if (signal.aborted || server.isClosed() || !server.isRestarting()) done();
  });
  if (signal.aborted) throw abortedError(server.name, tool, signal.reason);
  if (server.isClosed()) throw closedError(server.name);
  if (timedOut && server.isRestarting()) {
    throw new WrappedServerError(
      "restarting",
      server.name,
      `Server "${server.name}" did not come back within ${options.timeoutMs} ms after a failure; its last error: ${server.lastError() ?? "unknown"}`,
    );
  }
}
