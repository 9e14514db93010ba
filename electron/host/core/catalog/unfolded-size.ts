// How much of a schema a validator may apply to one value, measured before it is compiled. ajv
// applies each `$ref` by calling its target, so a schema of a few hundred bytes whose subschemas
// refer, three alternatives at a time, to the next level takes 3^20 steps on a value that fails
// at the bottom: hours of the host's one thread. Unfolded (every local `$ref` replaced by what it
// names), such a schema is that large; a schema of bounded unfolded size takes at most that many
// steps per node of the value.
import { resolveLocalRef } from "./local-ref.js";
import type { JsonObject } from "./schema-render.js";

/** Keywords whose values are data or definitions, not subschemas applied where they stand. */
const NOT_APPLIED = new Set(["enum", "const", "examples", "default", "$defs", "definitions"]);

/** References that cannot be resolved here: no size can be vouched for. */
const DYNAMIC_REFS = new Set(["$dynamicRef", "$recursiveRef"]);

/**
 * Whether `root`, its local `$ref`s unfolded, holds more than `max` subschemas (objects), or a
 * `$ref` that cannot be unfolded (one to itself, directly or not; a remote or dynamic one).
 * Linear in the schema: each object is sized once, and sizes stop growing past `max`.
 */
export function unfoldedSizeOver(root: JsonObject, max: number): boolean {
  const sizes = new Map<object, number>();
  const onPath = new Set<object>();
  const size = (node: unknown): number => {
    if (typeof node !== "object" || node === null) return 0;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (onPath.has(node)) return Infinity;
    onPath.add(node);
    let total = Array.isArray(node) ? 0 : 1;
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((value: unknown) => ["", value])
      : Object.entries(node);
    for (const [key, value] of entries) {
      if (total > max) break;
      if (Array.isArray(node) || typeof value !== "string") {
        if (Array.isArray(node) || !NOT_APPLIED.has(key)) total += size(value);
      } else if (key === "$ref") {
        const target = resolveLocalRef(root, value);
        total += target === undefined ? Infinity : size(target);
      } else if (DYNAMIC_REFS.has(key)) {
        total = Infinity;
      }
    }
    onPath.delete(node);
    const capped = Math.min(total, max + 1);
    sizes.set(node, capped);
    return capped;
  };
  try {
    return size(root) > max;
  } catch {
    // A chain of references too long for the stack: too large to vouch for either.
    return true;
  }
}
