// ajv checks `enum` by comparing the value with each allowed one in turn (past 200 of them, in a
// loop calling its deep equal), and both sides are chosen by others: the server the enum, the
// code in the sandbox the arguments. A call's 16 KiB held ~1,800 items of an array whose items
// had a 100,000-value enum: ~3.8 s of the host's thread per call, minutes for a run's 200 calls.
// The compiling ajv checks `enum` with this keyword instead: one lookup in a hash per value.
import type { ErrorObject, FuncKeywordDefinition } from "ajv";

type DataValidateFunction = ReturnType<NonNullable<FuncKeywordDefinition["compile"]>>;
import { equalityKey } from "./json-equality-key.js";

/** ajv's own message for a value not in its enum, so refusals read as before. */
const MESSAGE = "must be equal to one of the allowed values";

/**
 * `enum` as ajv means it (equal to one of the values: `===` for scalars, deep equality, keys in
 * any order, for objects and arrays), looked up in a Set. Only the compiling instance uses it;
 * the meta-schema check keeps ajv's own keyword (its schemas are ajv's, not a server's).
 */
export const HASHED_ENUM_KEYWORD: FuncKeywordDefinition = {
  keyword: "enum",
  schemaType: "array",
  errors: true,
  compile(values: unknown[]) {
    const scalars = new Set<unknown>();
    const composites = new Set<string>();
    for (const value of values) {
      if (value !== null && typeof value === "object") composites.add(equalityKey(value));
      else scalars.add(value);
    }
    const error: Partial<ErrorObject> = {
      keyword: "enum",
      message: MESSAGE,
      params: { allowedValues: values },
    };
    const validate: DataValidateFunction = (data: unknown): boolean => {
      const found =
        data !== null && typeof data === "object"
          ? composites.size > 0 && composites.has(equalityKey(data))
          : scalars.has(data);
      validate.errors = found ? [] : [error];
      return found;
    };
    return validate;
  },
};
