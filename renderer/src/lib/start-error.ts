// A server's start error as the Servers page shows it. The host's error ends with the server's
// last stderr lines (see withStderr in the host's stderr-tail), and the page shows those lines
// in a block of their own just below: printed in both places, a user read them twice, the
// first time run into the sentence before them.

/** What the host puts between the error and the server's stderr lines. */
const STDERR_MARKER = "\nLast lines of stderr:\n";

/** The error without its copy of the stderr lines when the page shows them below it. */
export function startErrorText(lastError: string, stderrShown: boolean): string {
  if (!stderrShown) return lastError;
  const at = lastError.indexOf(STDERR_MARKER);
  return at === -1 ? lastError : lastError.slice(0, at);
}
