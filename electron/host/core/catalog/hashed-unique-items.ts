// ajv's own `uniqueItems`, where the items are typed as scalars, looks each item up in a plain
// object (`indices[item]`): an item "__proto__" finds the object's prototype there, not a
// number, so ["__proto__", "__proto__"] passed a schema asking for unique strings and reached
// the server. The compiling ajv checks `uniqueItems` with this keyword instead: a Set of each
// item's equality key (ajv's deep equality), which holds for any item and any type.
import type { ErrorObject, FuncKeywordDefinition } from "ajv";
import { equalityKey } from "./json-equality-key.js";

type DataValidateFunction = ReturnType<NonNullable<FuncKeywordDefinition["compile"]>>;

export const HASHED_UNIQUE_ITEMS_KEYWORD: FuncKeywordDefinition = {
  keyword: "uniqueItems",
  type: "array",
  schemaType: "boolean",
  errors: true,
  compile(unique: boolean) {
    const validate: DataValidateFunction = (data: unknown): boolean => {
      validate.errors = [];
      if (!unique || !Array.isArray(data)) return true;
      const seen = new Map<string, number>();
      for (let i = 0; i < data.length; i++) {
        const key = equalityKey(data[i]);
        const j = seen.get(key);
        if (j !== undefined) {
          const error: Partial<ErrorObject> = {
            keyword: "uniqueItems",
            message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
            params: { i, j },
          };
          validate.errors = [error];
          return false;
        }
        seen.set(key, i);
      }
      return true;
    };
    return validate;
  },
};
