// Waiting for something with a bound, without leaving a timer behind to hold the process.

/** Resolves when `promise` settles or after `ms`, whichever comes first; never rejects. */
export async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.then(noop, noop), elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}
