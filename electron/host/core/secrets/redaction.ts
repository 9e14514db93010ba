// Secrets (env values the user marked secret) must never reach the audit log. Arguments are
// masked by the rule every reader of a secret applies (secret-mask.ts): each occurrence of a
// secret is replaced, and only the occurrence, so what a call sent stays readable around it.
import { cutCodePoints, cutUtf8 } from "../../util/text-cut.js";
import { AUDIT_LIMITS } from "../../../../shared/limits.js";
import { secretMasker } from "./secret-mask.js";
import { distinctKeys } from "../../util/distinct-keys.js";

/** Arguments nested deeper than this are logged as a placeholder. */
export const AUDIT_ARGS_MAX_DEPTH = 64;

const TOO_DEEP_MARK = "[too deep]";

export interface RedactionOptions {
  /** The tool is marked to hide its arguments (hideArgs): they are not logged at all. */
  hidden: boolean;
  secrets: readonly string[];
}

/**
 * The arguments of a call as they may be logged: null for a tool marked to hide them; else
 * JSON text in which every occurrence of a secret, in string values, keys and numbers spelled
 * like one, is replaced by "[secret]", cut to AUDIT_LIMITS.argsMaxBytes. Private tools' too:
 * arguments say where the data was (which file, which query), and without them the log could
 * not say what a run read.
 */
export function redactArgs(args: unknown, options: RedactionOptions): string | null {
  if (options.hidden) return null;
  const masker = secretMasker(options.secrets);
  const redacted =
    masker === null ? args : masker.deep(args, { numbers: true, maxDepth: AUDIT_ARGS_MAX_DEPTH });
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
  if (depth >= AUDIT_ARGS_MAX_DEPTH) return TOO_DEEP_MARK;
  if (Array.isArray(value)) return value.map((item) => capStrings(item, cap, depth + 1));
  // Two keys cut to the same text both stay, numbered.
  return distinctKeys(
    Object.entries(value).map(([key, item]) => [
      cutCodePoints(key, Math.max(1, cap)),
      capStrings(item, cap, depth + 1),
    ]),
  );
}
