// Small things many tests need: polling for a condition, and the text of a tool result.

/** Polls `check` every 10 ms until it is true; rejects naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The first content part's text, or "" when it is not text. */
export function textOf(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string } | undefined;
  return first?.type === "text" ? (first.text ?? "") : "";
}
