// ajv checks `uniqueItems` by comparing every pair of an array's items (a hash is used only
// when the schema types the items as one scalar type), and the code in the sandbox chooses the
// arrays: 1,554 distinct small objects fit in a call's 16 KiB and cost ~90 ms of the host's
// thread per call, ~20 s for a run's 200 calls. A tool whose schema asks for unique items that
// ajv compares pair by pair gets its arguments' arrays bounded first; the bound keeps the
// pairs few.
import type { ErrorObject, ValidateFunction } from "ajv";

/**
 * In the arguments of a tool whose schema asks for unique items, no array may be longer:
 * ajv compares every pair of items, so the cost grows with the square of the length
 * (unique-items-bound.ts). 512 small objects take ~10 ms to check.
 */
export const UNIQUE_ITEMS_ARRAY_MAX = 512;

/**
 * Whether ajv would compare the items of some array pair by pair: the schema asks for
 * `uniqueItems` somewhere without typing the items as scalars. Where the items are typed as
 * scalars (unique ids, unique labels: the usual case) ajv checks in one pass through a hash,
 * and a bound would refuse an honest call for nothing. The whole JSON is walked, not only
 * schema positions: a `uniqueItems` key inside an enum value adds a needless bound, never
 * misses one.
 */
export function needsUniqueItemsBound(schema: unknown): boolean {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) stack.push(item);
      continue;
    }
    const node = value as Record<string, unknown>;
    if (Object.hasOwn(node, "uniqueItems") && node.uniqueItems !== false) {
      if (!hashedByAjv(node.items)) return true;
    }
    // A loop, not a spread: a server's enum of 100,000+ values would overflow the arguments.
    for (const item of Object.values(node)) stack.push(item);
  }
  return false;
}

/** ajv's own test (uniqueItems.ts, canOptimize): items typed, and no type object or array. */
function hashedByAjv(items: unknown): boolean {
  if (items === null || typeof items !== "object" || Array.isArray(items)) return false;
  const { type, nullable } = items as Record<string, unknown>;
  const types: unknown[] = Array.isArray(type) ? type : type === undefined ? [] : [type];
  if (nullable === true && !types.includes("null")) types.push("null");
  if (types.length === 0) return false;
  return types.every((t) => typeof t === "string" && t !== "object" && t !== "array");
}

/**
 * `validate` behind a check that no array in the data is longer than
 * UNIQUE_ITEMS_ARRAY_MAX; a longer one fails with an error naming where it is.
 */
export function withUniqueItemsBound(validate: ValidateFunction): ValidateFunction {
  const max = UNIQUE_ITEMS_ARRAY_MAX;
  const bounded = function (this: unknown, data: unknown): boolean {
    const path = longArrayPath(data, max);
    if (path !== undefined) {
      const error: ErrorObject = {
        instancePath: path,
        schemaPath: "#/uniqueItems",
        keyword: "uniqueItems",
        params: { limit: max },
        message: `must have at most ${max} items (the schema asks for unique items)`,
      };
      bounded.errors = [error];
      return false;
    }
    const ok = validate(data);
    bounded.errors = validate.errors;
    return ok;
  } as ValidateFunction;
  return Object.assign(bounded, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

/** The JSON pointer of the first array longer than `max` in `data`, walked without recursion. */
function longArrayPath(data: unknown, max: number): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: data, path: "" }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (Array.isArray(value)) {
      if (value.length > max) return path;
      value.forEach((item, i) => stack.push({ value: item, path: `${path}/${i}` }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      const escaped = key.replaceAll("~", "~0").replaceAll("/", "~1");
      stack.push({ value: item, path: `${path}/${escaped}` });
    }
  }
  return undefined;
}
