import { SECRET_LIMITS } from "../../../shared/limits.js";
import type { ServersConfig } from "../servers/server-config-types.js";

// Secrets stay with their server (issue 8 §9): a server that echoes its own API key in a
// result or an error must not hand it to the code, which could print it or send it on. Every
// text the bridge returns to the code passes through maskSecrets first, and so does every text
// of a tool's listing the code reads (description, schema: see maskJson and the catalog
// builder). Replacing is linear: one indexOf scan of the text per secret.

export const SECRET_MASK = "[secret]";

/** The secret env values of a config that are long enough to mask, longest first. */
export function secretValues(config: ServersConfig): string[] {
  const values = new Set<string>();
  for (const entry of config.servers.values()) {
    for (const name of entry.secretEnv) {
      const value = entry.env[name];
      if (value === undefined || value.length < SECRET_LIMITS.maskMinChars) continue;
      values.add(value);
      // A structured result reaches the code as JSON: the secret as JSON escapes it.
      const escaped = JSON.stringify(value).slice(1, -1);
      if (escaped !== value) values.add(escaped);
    }
  }
  // Longest first, so a secret that contains a shorter one is not left half shown.
  return [...values].sort((a, b) => b.length - a.length);
}

/** `text` with every occurrence of every secret replaced by "[secret]". */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length < SECRET_LIMITS.maskMinChars) continue;
    if (result.includes(secret)) result = result.split(secret).join(SECRET_MASK);
  }
  return result;
}

/**
 * A JSON value (a tool's input schema) with every string in it, keys included, masked: what the
 * stub renders of an `enum`, a `default` or `examples` cannot show a secret. Returns the value
 * itself when there is nothing to mask. Recursion is bounded: the catalog only renders schemas
 * that compiled, whose depth is capped.
 */
export function maskJson(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  if (typeof value === "string") return maskSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => maskJson(item, secrets));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        maskSecrets(key, secrets),
        maskJson(item, secrets),
      ]),
    );
  }
  return value;
}
