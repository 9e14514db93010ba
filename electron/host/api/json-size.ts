// How long a value's JSON would be, counted without building it, and given up on once past a
// cap: a reply too big to send must be found without first spending the memory (or hitting
// V8's string limit, which throws and would take the daemon down) to build it.

/**
 * The length of `JSON.stringify(value)` in UTF-16 units, or any number over `cap` as soon as
 * the count passes it. Plain data only (what API replies are): objects, arrays, strings,
 * numbers, booleans, null; undefined and functions are left out as JSON.stringify does.
 */
export function jsonLengthUpTo(value: unknown, cap: number): number {
  let total = 0;
  // An explicit stack: a deeply nested reply must not overflow the call stack either.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    total += leafLength(item, cap);
    if (total > cap) return total;
    if (item === null || typeof item !== "object") continue;
    if (Array.isArray(item)) {
      total += 2 + Math.max(0, item.length - 1);
      for (const element of item) {
        if (element === undefined || typeof element === "function")
          total += 4; // "null"
        else stack.push(element);
      }
      continue;
    }
    const source =
      typeof (item as { toJSON?: unknown }).toJSON === "function"
        ? (item as { toJSON: () => unknown }).toJSON()
        : item;
    if (source !== item) {
      stack.push(source);
      continue;
    }
    let fields = 0;
    for (const [key, field] of Object.entries(item)) {
      if (field === undefined || typeof field === "function") continue;
      total += JSON.stringify(key).length + 1;
      fields += 1;
      stack.push(field);
      if (total > cap) return total;
    }
    total += 2 + Math.max(0, fields - 1);
  }
  return total;
}

/** What a non-container adds; 0 for objects and arrays, counted by the caller. */
function leafLength(item: unknown, cap: number): number {
  if (item === null) return 4;
  switch (typeof item) {
    case "string":
      // Escapes only lengthen a string: one already over the cap need not be copied to know.
      return item.length + 2 > cap ? item.length + 2 : JSON.stringify(item).length;
    case "number":
      return Number.isFinite(item) ? String(item).length : 4;
    case "boolean":
      return item ? 4 : 5;
    case "bigint":
      // JSON.stringify throws on these: count them as unsendable.
      return Number.POSITIVE_INFINITY;
    default:
      return 0;
  }
}
