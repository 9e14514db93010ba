// Secrets (env values the user marked secret) must never reach the audit log. Arguments get
// the strict treatment (a value touching a secret is replaced whole, since what surrounds a
// secret in an argument is often more of it); every other text of an entry has the
// occurrences themselves replaced, as a last line of defence for what the arguments rule
// cannot see (a server echoing its key in an error, a secret pasted into code).
import { cutUtf8 } from "../catalog/text-cut.js";
import { AUDIT_LIMITS } from "../../../shared/limits.js";

export const SECRET_MARK = "[secret]";
const TOO_DEEP_MARK = "[too deep]";

export interface RedactionOptions {
  /** The tool is private: its arguments are not logged at all. */
  private: boolean;
  secrets: readonly string[];
}

/**
 * The arguments of a call as they may be logged: null for a private tool; else JSON text in
 * which every string value (and key) equal to or containing a secret, and every number or
 * boolean spelled like one, is replaced by "[secret]", cut to AUDIT_LIMITS.argsMaxBytes.
 */
export function redactArgs(args: unknown, options: RedactionOptions): string | null {
  if (options.private) return null;
  const secrets = usableSecrets(options.secrets);
  const redacted = secrets.length === 0 ? args : redactValue(args, secrets, 0);
  let text: string | undefined;
  try {
    text = JSON.stringify(redacted);
  } catch {
    // Arguments come from parsed JSON, so only a caller bug gets here; log nothing rather
    // than fail the entry.
    return null;
  }
  return cutUtf8(text ?? "null", AUDIT_LIMITS.argsMaxBytes);
}

/** `text` with every occurrence of every secret replaced by "[secret]". */
export function redactText(text: string, secrets: readonly string[]): string {
  return replaceSecrets(text, usableSecrets(secrets));
}

/** A JSON-like value with redactText applied to every string in it, keys included. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  return deepRedactor(secrets)?.(value) ?? value;
}

/**
 * redactDeep for many values and the same secrets, which are sorted once here rather than once
 * per value and per string in it: an audit entry is scrubbed field by field, on every tool call
 * (bench/audit-entry-prepare.ts). Null when no secret is usable: there is nothing to replace.
 */
export function deepRedactor(secrets: readonly string[]): (<T>(value: T) => T) | null {
  const usable = usableSecrets(secrets);
  if (usable.length === 0) return null;
  return <T>(value: T): T => scrub(value, usable) as T;
}

/** `text` with every secret of `usable` (usableSecrets' list) replaced by "[secret]". */
function replaceSecrets(text: string, usable: readonly string[]): string {
  let result = text;
  // Longest first, so a secret that contains a shorter one is not left half shown.
  for (const secret of usable) {
    if (result.includes(secret)) result = result.split(secret).join(SECRET_MARK);
  }
  return result;
}

function usableSecrets(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((secret) => secret.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
}

function touchesSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => text.includes(secret));
}

function redactValue(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === "string") return touchesSecret(value, secrets) ? SECRET_MARK : value;
  if (typeof value === "number" || typeof value === "boolean") {
    return secrets.includes(String(value)) ? SECRET_MARK : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= AUDIT_LIMITS.argsMaxDepth) return TOO_DEEP_MARK;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const out: Record<string, unknown> = {};
  let hidden = 0;
  for (const [key, item] of Object.entries(value)) {
    let name = key;
    if (touchesSecret(key, secrets)) {
      hidden += 1;
      name = hidden === 1 ? SECRET_MARK : `[secret ${hidden}]`;
    }
    out[name] = redactValue(item, secrets, depth + 1);
  }
  return out;
}

/** `usable` is usableSecrets' list: deduplicated, without empty ones, longest first. */
function scrub(value: unknown, usable: readonly string[]): unknown {
  if (typeof value === "string") return replaceSecrets(value, usable);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, usable));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[replaceSecrets(key, usable)] = scrub(item, usable);
  return out;
}
