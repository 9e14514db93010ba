// Waiting for something with a bound, without leaving a timer behind to hold the process.

/**
 * Resolves when `promise` settles, after `ms` or once `signal` aborts, whichever comes first, to
 * whether it settled in time; never rejects.
 */
export async function waitAtMost(
  promise: Promise<unknown>,
  ms: number,
  signal?: AbortSignal,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = (): void => undefined;
  const elapsed = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onAbort = () => resolve(false);
    if (signal?.aborted) resolve(false);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, elapsed]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
