// Secrets (env values the user marked secret) must never reach the audit log. Arguments get
// the strict treatment (a value touching a secret is replaced whole, since what surrounds a
// secret in an argument is often more of it); every other text of an entry has the
// occurrences themselves replaced, as a last line of defence for what the arguments rule
// cannot see (a server echoing its key in an error, a secret pasted into code).
import { cutCodePoints, cutUtf8 } from "../catalog/text-cut.js";
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
  if (text === undefined) return "null";
  if (Buffer.byteLength(text) <= AUDIT_LIMITS.argsMaxBytes)
    return cutUtf8(text, AUDIT_LIMITS.argsMaxBytes);
  return cutUtf8(shapeKept(redacted), AUDIT_LIMITS.argsMaxBytes);
}

/**
 * Arguments too long to log whole, as JSON whose every string (keys too) is cut to the longest
 * length that lets it all fit. The code chooses the arguments: cutting the JSON text at its end
 * let one long harmless field first push what the call really did (a path, a recipient) out
 * of the log. Found by halving: a few stringifications of at most a call's 16 KiB.
 */
function shapeKept(args: unknown): string {
  const fits = (cap: number): string | undefined => {
    const text = JSON.stringify(capStrings(args, cap, 0));
    return Buffer.byteLength(text) <= AUDIT_LIMITS.argsMaxBytes ? text : undefined;
  };
  let low = 0;
  let high = AUDIT_LIMITS.argsMaxBytes;
  let best = fits(low);
  if (best === undefined) return JSON.stringify(capStrings(args, 0, 0));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    const text = fits(middle);
    if (text === undefined) high = middle - 1;
    else {
      best = text;
      low = middle;
    }
  }
  return best;
}

/** `value` with every string and key cut to `cap` code points (a cut one ends in "…"). */
function capStrings(value: unknown, cap: number, depth: number): unknown {
  if (typeof value === "string") return cutCodePoints(value, Math.max(1, cap));
  if (value === null || typeof value !== "object") return value;
  if (depth >= AUDIT_LIMITS.argsMaxDepth) return TOO_DEEP_MARK;
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap, depth + 1));
  const out = keyedObject();
  // Two keys cut to the same text both stay, numbered. The next number is kept per cut text:
  // the code chooses the keys, and trying #2, #3, ... from the start for each of thousands of
  // keys cut alike cost a time growing with the square of their number.
  const nextNumber = new Map<string, number>();
  for (const [key, item] of Object.entries(value)) {
    const cut = cutCodePoints(key, Math.max(1, cap));
    let name = cut;
    if (Object.hasOwn(out, name)) {
      let n = nextNumber.get(cut) ?? 2;
      while (Object.hasOwn(out, `${cut}#${n}`)) n += 1;
      name = `${cut}#${n}`;
      nextNumber.set(cut, n + 1);
    }
    out[name] = capStrings(item, cap, depth + 1);
  }
  return out;
}

/**
 * The object a copy's keys go into. Null-prototype: the code chooses the keys, and on a plain
 * object a key named `__proto__` (an own key in parsed JSON, which the server receives) set the
 * copy's prototype instead of a key, so that argument vanished from the log and from the "ask
 * first" panel.
 */
function keyedObject(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
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
  const out = keyedObject();
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
  const out = keyedObject();
  for (const [key, item] of Object.entries(value))
    out[replaceSecrets(key, usable)] = scrub(item, usable);
  return out;
}
