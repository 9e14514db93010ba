// Which held tools a run's code may name: only those are sent to the runner (a server may
// hold thousands, each with its message, and the start line should not carry them all).
// A linear scan of the code's identifier-like words: no parsing, no regex.

function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    code === 95 || // _
    code > 127 // any non-ASCII character: it may be part of an identifier
  );
}

/** The held tools (Python name to message) whose name appears as a whole word in `code`. */
export function heldNamedIn(
  code: string,
  held: ReadonlyMap<string, string> | undefined,
): { name: string; message: string }[] {
  if (held === undefined || held.size === 0) return [];
  const found: { name: string; message: string }[] = [];
  const seen = new Set<string>();
  let start = -1;
  for (let i = 0; i <= code.length; i++) {
    const word = i < code.length && isWordChar(code.charCodeAt(i));
    if (word && start === -1) start = i;
    if (word || start === -1) continue;
    const name = code.slice(start, i);
    start = -1;
    const message = held.get(name);
    if (message === undefined || seen.has(name)) continue;
    seen.add(name);
    found.push({ name, message });
  }
  return found;
}
