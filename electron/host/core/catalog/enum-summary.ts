// ajv checks a schema against its meta-schema before it is compiled, and draft-07's meta-schema
// asks for `enum` arrays with unique items of any type, which ajv checks by comparing every pair:
// a server listing one tool whose enum holds 100,000 distinct strings (~900 KB) held the host's
// thread ~67 s at every catalog build (20,000: ~1.4 s). The meta-schema check is given a copy in
// which each such array stands for itself by at most two of its values, chosen so that every
// rule the meta-schemas apply to an array there gives the same verdict; uniqueness is checked
// here, in one pass through a hash.
import { equalityKey } from "./json-equality-key.js";

/**
 * One or two values of `values` that meet the meta-schemas' array rules as all of them do: none
 * (empty: minItems fails), the first twice (a duplicate: uniqueItems fails), the first (unique
 * strings: an enum, and a string array as `dependencies` or `required` take, both pass), or the
 * first that is not a string (unique, not all strings: an enum passes, a string array fails).
 */
function summary(values: unknown[]): unknown[] {
  if (values.length === 0) return [];
  const seen = new Set<string>();
  for (const value of values) {
    const key = equalityKey(value);
    if (seen.has(key)) return [values[0], values[0]];
    seen.add(key);
  }
  const notString = values.find((value) => typeof value !== "string");
  return notString === undefined ? [values[0]] : [notString];
}

/**
 * `schema` for the meta-schema check: a copy in which every array under an `enum` key is its
 * summary. An `enum` key met outside a schema position (inside a default, a const, a property
 * map) is summarised too: the meta-schemas either ignore it there or refuse any array alike.
 * Linear in the schema's size; the depth is bounded before (isNestedDeeperThan).
 */
export function withEnumsSummarised(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withEnumsSummarised);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // defineProperty: a "__proto__" key stays a key, as JSON.parse made it.
    Object.defineProperty(out, key, {
      value: key === "enum" && Array.isArray(value) ? summary(value) : withEnumsSummarised(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
