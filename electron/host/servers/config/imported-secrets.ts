// Servers brought in from elsewhere (Claude Desktop's config, a pasted snippet) carry their env
// as written there, where API keys and tokens usually sit in plain text. Until the user says
// otherwise, every such value is a secret: encrypted at rest, masked in the UI, kept out of
// logs. The user can still unmark one in the Servers page, as for any env key.

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The entry with every env key listed in `secret` (after those it already lists). An entry
 * that is not an object, has no env object, or a `secret` that is not a list is returned as
 * it is: adding to it would hide the problem the entry's validation names.
 */
export function withEnvSecret<T>(entry: T): T {
  if (!isObject(entry) || !isObject(entry.env)) return entry;
  const keys = Object.keys(entry.env);
  if (keys.length === 0) return entry;
  if (entry.secret === undefined) return { ...entry, secret: keys };
  if (!Array.isArray(entry.secret)) return entry;
  const listed: unknown[] = entry.secret;
  return { ...entry, secret: [...listed, ...keys.filter((key) => !listed.includes(key))] };
}

/** Every server of an imported `name -> entry` object with its env values marked secret. */
export function importedWithEnvSecret<T>(servers: Record<string, T>): Record<string, T> {
  // Object.fromEntries defines own keys: a server named "__proto__" stays a name.
  return Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => [name, withEnvSecret(entry)]),
  );
}
