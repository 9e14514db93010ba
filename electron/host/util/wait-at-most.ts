// Waiting for something with a bound, without leaving a timer behind to hold the process.

/**
 * Resolves when `promise` settles or after `ms`, whichever comes first, to whether it settled
 * in time; never rejects.
 */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
