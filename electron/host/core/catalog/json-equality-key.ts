// One text per value as ajv's deep equality (fast-deep-equal) sees JSON values, so that sets of
// values can be checked through a hash instead of pair by pair (enum, uniqueItems).

/**
 * A text equal for two values exactly when ajv's `equal` (fast-deep-equal) finds them equal:
 * object keys in any order, 0 and -0 alike. It recurses: a schema's depth is checked before, and
 * a call's arguments nested too deep for the stack make the bridge refuse them as arguments that
 * could not be checked (it catches what validation throws).
 */
export function equalityKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(equalityKey).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) => `${JSON.stringify(key)}:${equalityKey((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
