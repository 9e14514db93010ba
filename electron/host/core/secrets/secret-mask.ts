import { SECRET_LIMITS } from "../../../../shared/limits.js";
import type { ServerEntry, ServersConfig } from "../ports/server-config-types.js";
import { distinctKeys } from "../../util/distinct-keys.js";

/**
 * A secret at least this long has each of its occurrences replaced by "[secret]" wherever it
 * could show: results, errors and refusals before the code sees them, tool listings, the
 * audit log, the approval panel, the UI. A shorter one is masked nowhere: it would mangle
 * ordinary text (imported env values such as `DEBUG=true` are marked secret by default).
 */
export const SECRET_MASK_MIN_CHARS = SECRET_LIMITS.maskMinChars;

// Secrets stay with their server: a server that echoes its own API key in a result or an error
// must not hand it to the code, the audit log, the approval panel or the UI. Every one of those
// masks text with the one rule here: each occurrence of a secret (at least
// SECRET_MASK_MIN_CHARS long) is replaced by "[secret]", and only the occurrence. Replacing
// a whole value that merely contained a secret let code hide what it sent from the log: an
// exfiltration URL ending in `&pad=<a secret it could guess>` was logged as `[secret]` alone.
// Masking is linear in the text for each secret: an indexOf scan, no regular expression.

export const SECRET_MARK = "[secret]";
const TOO_DEEP_MARK = "[too deep]";

/** The values of an entry's env keys marked secret (empty ones left out). */
export function entrySecrets(entry: ServerEntry): string[] {
  return entry.secretEnv.map((name) => entry.env[name] ?? "").filter((value) => value !== "");
}

/** The secret env values of every server of a config: what is never shown, sent or logged. */
export function configSecrets(config: ServersConfig): string[] {
  return [...config.servers.values()].flatMap(entrySecrets);
}

/** How secretMasker's `deep` walks a value. */
export interface DeepMaskOptions {
  /**
   * Numbers are masked as they are spelled (a PIN sent as a number), becoming text: for values
   * the code sent. Not for the host's own records, whose numbers are counts that must stay
   * numbers.
   */
  numbers?: boolean;
  /** Past this many levels a value is replaced by "[too deep]"; absent: as deep as the value. */
  maxDepth?: number;
}

/** Masks texts and JSON values with one prepared list of secrets. */
export interface SecretMasker {
  text(text: string): string;
  /** A JSON value with every string in it, keys too, masked. */
  deep<T>(value: T, options?: DeepMaskOptions): T;
}

/**
 * A masker for `secrets` (raw values, any order), or null when none is long enough to mask:
 * then there is nothing to replace. Shorter ones would mangle ordinary text (an imported
 * `DEBUG=true` is marked secret by default); every reader of a secret applies the same minimum.
 */
export function secretMasker(secrets: readonly string[]): SecretMasker | null {
  // Made for every audit entry, every call's outcome and every view, nearly always from the same
  // config's values: the last one made is kept and given again for the same list.
  if (lastMade !== null && sameList(lastMade.secrets, secrets)) return lastMade.masker;
  const masker = makeMasker(secrets);
  lastMade = { secrets: [...secrets], masker };
  return masker;
}

let lastMade: { secrets: readonly string[]; masker: SecretMasker | null } | null = null;

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

function makeMasker(secrets: readonly string[]): SecretMasker | null {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < SECRET_MASK_MIN_CHARS) continue;
    values.add(secret);
    // A structured result reaches the code as JSON, and the log's args are JSON text: the
    // secret as JSON escapes it too.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) values.add(escaped);
  }
  if (values.size === 0) return null;
  const usable = [...values];
  const text = (value: string): string => maskText(value, usable);
  const plain: Walk = { text, numbers: false };
  const withNumbers: Walk = { text, numbers: true };
  return {
    text,
    deep: <T>(value: T, options?: DeepMaskOptions): T =>
      maskValue(value, options?.numbers === true ? withNumbers : plain, options?.maxDepth) as T,
  };
}

/** `text` with every occurrence of every secret replaced by "[secret]". */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  return secretMasker(secrets)?.text(text) ?? text;
}

/** `value` (JSON-like) with secretMasker's `deep` applied; the value itself when none applies. */
export function maskDeep<T>(value: T, secrets: readonly string[], options?: DeepMaskOptions): T {
  return secretMasker(secrets)?.deep(value, options) ?? value;
}

/**
 * Marks every place a secret covers, then writes each run of marked places as one "[secret]":
 * overlapping or adjacent occurrences (of one secret or of two) leave no piece of either
 * showing, and what is around them stays as it was. Each secret is one indexOf scan of the text
 * (occurrences of one secret overlap only as densely as it repeats itself, which a real secret
 * does not), and each place is marked at most once per secret: linear in the text.
 */
function maskText(text: string, secrets: readonly string[]): string {
  let covered: Uint8Array | null = null;
  for (const secret of secrets) {
    let markedTo = 0;
    let at = text.indexOf(secret);
    while (at !== -1) {
      covered ??= new Uint8Array(text.length);
      const end = at + secret.length;
      covered.fill(1, Math.max(at, markedTo), end);
      markedTo = end;
      at = text.indexOf(secret, at + 1);
    }
  }
  if (covered === null) return text;
  let out = "";
  let start = 0;
  let index = 0;
  while (index < text.length) {
    if (covered[index] === 0) {
      index += 1;
      continue;
    }
    out += text.slice(start, index) + SECRET_MARK;
    while (index < text.length && covered[index] === 1) index += 1;
    start = index;
  }
  return out + text.slice(start);
}

interface Walk {
  text: (value: string) => string;
  numbers: boolean;
}

function maskValue(value: unknown, walk: Walk, maxDepth = Infinity, depth = 0): unknown {
  if (typeof value === "string") return walk.text(value);
  if (typeof value === "number" && walk.numbers) {
    const spelled = String(value);
    const masked = walk.text(spelled);
    return masked === spelled ? value : masked;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= maxDepth) return TOO_DEEP_MARK;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, walk, maxDepth, depth + 1));
  // Two keys masked alike both stay (the second numbered): the server gets both.
  return distinctKeys(
    Object.entries(value).map(([key, item]) => [
      walk.text(key),
      maskValue(item, walk, maxDepth, depth + 1),
    ]),
  );
}
