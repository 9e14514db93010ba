// Small things many tests need: polling for a condition, and the text of a tool result.

/** How often `until` looks again. */
const POLL_MS = 10;

/**
 * Polls `check` until it is true; rejects naming `what` after `timeoutMs`. The one polling
 * helper of the tests: anything that waits for a state builds on it.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The first content part's text, or "" when it is not text. */
export function textOf(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === "text" ? (first.text ?? "") : "";
}
