/**
 * An object of `entries` whose keys were changed (cut, masked) so that two may now be alike:
 * both stay, the later one numbered `key#2`, `key#3`, ... . The code chooses the keys, so:
 * - the next number is kept per key: trying #2, #3, ... from the start for each of thousands of
 *   keys changed alike cost a time growing with the square of their number;
 * - each key is an own data property (Object.fromEntries): assigned to a plain object, a key
 *   named `__proto__` (an own key in parsed JSON, which the server receives) set the copy's
 *   prototype instead, and vanished from the log and the "ask first" panel.
 */
export function distinctKeys(
  entries: Iterable<readonly [string, unknown]>,
): Record<string, unknown> {
  const taken = new Set<string>();
  const nextNumber = new Map<string, number>();
  const out: [string, unknown][] = [];
  for (const [key, value] of entries) {
    let name = key;
    if (taken.has(name)) {
      let n = nextNumber.get(key) ?? 2;
      while (taken.has(`${key}#${n}`)) n += 1;
      name = `${key}#${n}`;
      nextNumber.set(key, n + 1);
    }
    taken.add(name);
    out.push([name, value]);
  }
  return Object.fromEntries(out);
}
