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

/**
 * The held tools (Python name to message) whose name appears as a whole word in `code`, or,
 * for one held in a namespace (`methods`), whose method name does (`shop.add_item`); those
 * come with their namespace and method.
 */
export function heldNamedIn(
  code: string,
  held: ReadonlyMap<string, string> | undefined,
  methods?: ReadonlyMap<string, { namespace: string; method: string }>,
): { name: string; message: string; namespace?: string; method?: string }[] {
  if (held === undefined || held.size === 0) return [];
  const byMethod = new Map<string, string[]>();
  for (const [name, place] of methods ?? []) {
    const names = byMethod.get(place.method);
    if (names === undefined) byMethod.set(place.method, [name]);
    else names.push(name);
  }
  const words = wordsOf(code);
  const found: { name: string; message: string; namespace?: string; method?: string }[] = [];
  const seen = new Set<string>();
  for (const word of words) {
    for (const name of [word, ...(byMethod.get(word) ?? [])]) {
      const message = held.get(name);
      if (message === undefined || seen.has(name)) continue;
      seen.add(name);
      const place = methods?.get(name);
      found.push(
        place !== undefined && words.has(place.method)
          ? { name, message, namespace: place.namespace, method: place.method }
          : { name, message },
      );
    }
  }
  return found;
}

/** The identifier-like words of `code`, each once, in order of first use. */
function wordsOf(code: string): Set<string> {
  const words = new Set<string>();
  let start = -1;
  for (let i = 0; i <= code.length; i++) {
    const word = i < code.length && isWordChar(code.charCodeAt(i));
    if (word && start === -1) start = i;
    if (word || start === -1) continue;
    words.add(code.slice(start, i));
    start = -1;
  }
  return words;
}
