// Host validation errors arrive as `fields`, each with a path like ["mcpServers","notes",
// "command"] or ["name"]. These helpers put each message on the form field it is about.
import type { ApiError } from "../../../shared/api/api-contract.js";

export interface FieldErrorMap {
  /** Message per field key (the key is chosen by the caller's `keyOf`). */
  byField: Record<string, string>;
  /** Messages no field on the form claims: shown at the top of the form. */
  rest: string[];
}

/**
 * Sorts an error's field messages onto fields. `keyOf` turns a path into a field key the
 * form knows, or null when no field is about it.
 */
export function mapFieldErrors(
  error: ApiError | null | undefined,
  keyOf: (path: string[]) => string | null,
): FieldErrorMap {
  const result: FieldErrorMap = { byField: {}, rest: [] };
  if (!error) return result;
  for (const field of error.fields ?? []) {
    const path = field.path.map(String);
    const key = keyOf(path);
    if (key === null) {
      result.rest.push(path.length ? `${path.join(" › ")}: ${field.message}` : field.message);
    } else {
      const before = result.byField[key];
      result.byField[key] = before ? `${before} ${field.message}` : field.message;
    }
  }
  if (!error.fields?.length) result.rest.push(error.message);
  return result;
}

/** Drops the wrapping a server entry's path may carry: mcpServers.<name>. or entry. */
export function serverEntryPath(path: string[]): string[] {
  if (path[0] === "mcpServers") return path.slice(2);
  if (path[0] === "entry") return path.slice(1);
  return path;
}
